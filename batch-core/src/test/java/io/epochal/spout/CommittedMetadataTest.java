package io.epochal.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The last committed metadata a lag report reads, and the positions it reports. */
class CommittedMetadataTest {
  private static PartitionedMetadata<Long> meta(long p0) {
    return new PartitionedMetadata<>(new TreeMap<>(Map.of("p0", p0)), new TreeSet<>());
  }

  @Test
  void onlyACommittedBatchMovesTheLastCommittedMetadata() {
    CommittedMetadata<Long> c = new CommittedMetadata<>();
    assertEquals(Optional.empty(), c.last());
    c.seed(Optional.of(meta(5)));
    assertEquals(Optional.of(meta(5)), c.last(), "the checkpoint's metadata before the first commit here");
    c.remember(1, meta(7));
    c.remember(2, meta(9));
    assertEquals(Optional.of(meta(5)), c.last(), "cut or emitted is not committed");
    c.committed(1);
    assertEquals(Optional.of(meta(7)), c.last());
    c.seed(Optional.of(meta(1)));
    assertEquals(Optional.of(meta(7)), c.last(), "a seed never overrides a commit");
    c.remember(2, meta(11)); // an opaque replay re-cut the batch
    c.committed(2);
    assertEquals(Optional.of(meta(11)), c.last());
    c.committed(3); // nothing remembered (e.g. an empty opaque batch): unchanged
    assertEquals(Optional.of(meta(11)), c.last());
  }

  @Test
  void lagIsTheOffsetsAfterTheCommittedPosition() {
    assertEquals(7, new PartitionLag(10, 3).lag());
    assertEquals(0, new PartitionLag(3, 5).lag(), "a trimmed or truncated log never shows a negative lag");
    assertThrows(IllegalArgumentException.class, () -> new PartitionLag(-1, 0));
  }
}
