package io.epochal.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
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
    String summary = Files.readString(dir.resolve("summary.md"));
    assertTrue(summary.contains("Targets"), "the summary has the targets");
    assertTrue(summary.contains("Epochal PostgreSQL exactly-once ≥ 0.8× bare JDBC loop"), summary);
    assertTrue(summary.contains(BarePostgresLoop.UPSERT_TEXT), "the summary says how the bare loop writes");
  }

  @Test
  void variantsSelectsThePostgresVariantsAloneWithoutLatencyOrScaleRuns(@TempDir Path dir) throws Exception {
    List<Variant> pg = List.of(Variant.PG_BARE, Variant.EPOCHAL_PG_TX, Variant.EPOCHAL_PG_OPAQUE);
    E2E.Report report = E2E.run(new String[] {"--sentences", "1000", "--rounds", "1", "--xmx", "256m",
        "--batch", "100", "--variants", "pg-bare,epochal-pg-tx,epochal-pg-opaque", "--out", dir.toString()},
        System.out);

    assertEquals(pg, report.runs().stream().map(E2E.Run::variant).toList());
    assertTrue(report.latencyRuns().isEmpty() && report.scaleRuns().isEmpty(), "only the selected variants run");
    for (E2E.Run run : report.runs()) {
      assertTrue(run.verified(), run.variant().id() + ": " + run.verification());
      assertEquals(10_000, run.words(), run.variant().id());
      assertEquals(10, Long.parseLong(run.props().getProperty("batches")), run.variant().id());
      assertTrue(Long.parseLong(run.props().getProperty("serverCpuNanos")) > 0, "server CPU measured");
    }
    String summary = Files.readString(dir.resolve("summary.md"));
    assertTrue(summary.contains("| epochal-pg-tx | ") && summary.contains("fsync on"), summary);
  }
}
