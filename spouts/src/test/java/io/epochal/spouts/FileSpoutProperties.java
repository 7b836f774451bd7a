package io.epochal.spouts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class FileSpoutProperties {

  @Provide
  Arbitrary<String> lines() {
    return Arbitraries.of("a", "bc", "é", "€", "𝄞", " ", "xyz", "").list().ofMaxSize(8)
        .map(parts -> String.join("", parts));
  }

  /**
   * Cutting a file batch after batch, whatever the buffer size and batch limit, emits every complete line exactly
   * once, in order; each range ends on a line boundary and its CRC matches a re-emission.
   */
  @Property
  void batchesCoverEveryCompleteLineOnce(
      @ForAll @Size(max = 30) List<@From("lines") String> lines,
      @ForAll("lines") String partialTail,
      @ForAll @IntRange(min = 1, max = 16) int bufferSize,
      @ForAll @IntRange(min = 1, max = 6) int maxLines) throws IOException {
    Path dir = Files.createTempDirectory("file-spout-props");
    Path file = dir.resolve("input.log");
    try {
      StringBuilder content = new StringBuilder();
      lines.forEach(l -> content.append(l).append('\n'));
      content.append(partialTail);
      Files.writeString(file, content, UTF_8);
      FileSpout spout = new FileSpout("files", List.of(file), maxLines, bufferSize);

      List<String> emitted = new ArrayList<>();
      Optional<FileRange> previous = Optional.empty();
      long txid = 1;
      while (true) {
        Optional<FileRange> next = spout.nextPartitionBatch(file.toString(), txid, previous);
        if (next.isEmpty()) {
          break;
        }
        FileRange range = next.get();
        assertEquals(previous.map(FileRange::end).orElse(0L), range.start());
        List<String> batch = new ArrayList<>();
        spout.emitPartitionBatch(new BatchAttempt(txid, 1), file.toString(), range, batch::add);
        assertTrue(!batch.isEmpty() && batch.size() <= maxLines, "batch of " + batch.size());
        List<String> replay = new ArrayList<>();
        spout.emitPartitionBatch(new BatchAttempt(txid, 2), file.toString(), range, replay::add);
        assertEquals(batch, replay);
        emitted.addAll(batch);
        previous = next;
        txid++;
      }
      assertEquals(lines, emitted);
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
