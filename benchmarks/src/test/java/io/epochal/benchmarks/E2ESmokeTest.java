package io.epochal.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end harness at smoke size (2,000 sentences, one round): every variant, Storm Trident and Flink included,
 * runs in its own child JVM and its counts must equal the plain recount. Checks correctness only: no timing
 * assertion (the machine may be busy).
 */
class E2ESmokeTest {

  @Test
  void everyVariantCountsTheCorpusExactly(@TempDir Path dir) throws Exception {
    E2E.Report report = E2E.run(new String[] {"--sentences", "2000", "--rounds", "1", "--xmx", "512m",
        "--batch", "500", "--group-peers", "--scale-keys", "20000", "--latency-batches", "200", "--out", dir.toString()},
        System.out);

    Set<Variant> ran = report.runs().stream().map(E2E.Run::variant).collect(Collectors.toSet());
    Set<Variant> all = EnumSet.allOf(Variant.class);
    all.remove(Variant.EPOCHAL_ROCKSDB_SCALE);
    assertEquals(all, ran, "every variant runs");
    for (E2E.Run run : report.runs()) {
      assertTrue(run.verified(), run.variant().id() + ": " + run.verification());
      assertEquals(20_000, run.words(), run.variant().id());
    }
    assertEquals(1, report.latencyRuns().size());
    assertEquals(2, report.scaleRuns().size());
    for (E2E.Run run : report.latencyRuns()) {
      assertTrue(run.verified(), "latency run: " + run.verification());
    }
    for (E2E.Run run : report.scaleRuns()) {
      assertTrue(run.verified(), "scale run " + run.tag() + ": " + run.verification());
    }
    assertTrue(report.allVerified());
    assertTrue(Files.size(dir.resolve("chart.png")) > 1000, "the chart is drawn");
    assertTrue(Files.readString(dir.resolve("summary.md")).contains("Targets"), "the summary has the targets");
  }
}
