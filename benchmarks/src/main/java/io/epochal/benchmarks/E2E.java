package io.epochal.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The end-to-end comparison. One command generates the corpus once, then runs every variant in its own child JVM,
 * interleaved, {@code --rounds} times each; every run's counts are checked against the plain recount of the file.
 * Then the commit latency per batch size and the scale runs (10M keys vs 100k keys, {@code -Xmx512m}). Prints
 * words/s, CPU seconds and peak RSS with the ratios to the raw loop and to each peer, checks the targets, and writes
 * {@code runs.csv}, {@code summary.csv}, {@code summary.md} and {@code chart.png} to {@code --out}.
 *
 * <pre>
 * --sentences N        corpus size (default 1,000,000 sentences of 10 words)
 * --rounds R           runs per variant, interleaved (default 3); the table shows the median
 * --variants a,b,...   subset of variants (default all), e.g. pg-bare,epochal-pg-tx,epochal-pg-opaque
 * --threads T --partitions P --inflight F --batch B   pipeline settings (2, 2, 2, 10,000)
 * --xmx SIZE           heap of every child (default 2g)
 * --scale-keys K       keys of the prefilled scale run (default 10,000,000 when epochal-rocksdb-tx is among the
 *                      variants, else 0; 0 skips the scale runs)
 * --scale-xmx SIZE     heap of the scale runs (default 512m)
 * --latency-batches b1,b2,...   batch sizes of the commit latency runs (default 1000,10000,100000 when
 *                      epochal-rocksdb-tx is among the variants, else none; none skips)
 * --jdbc-url URL       the PostgreSQL server of the PostgreSQL variants (default: an embedded PostgreSQL started
 *                      from Maven binaries for the whole harness run); the user's password is read from PGPASSWORD,
 *                      and each run creates and drops a schema of its own
 * --jdbc-user USER     the user of --jdbc-url (default postgres)
 * --kafka-bootstrap H:P the Kafka broker of the Kafka variants (default: a Kafka 4.4.0 broker started in this JVM for
 *                      the whole harness run, KafkaClusterTestKit); the corpus is loaded once into a new topic that
 *                      every Kafka variant reads (kafka-plain, epochal-kafka-tx, epochal-kafka-opaque)
 * --kafka-partitions P partitions of that topic (default 4)
 * --jvm-arg ARG        extra JVM argument of every child (repeatable), e.g. -XX:+FlightRecorder
 * --out DIR            results directory (default target/e2e); the corpus lives there too
 * --chart FILE         where to write the chart (default OUT/chart.png)
 * --group-peers        run both Storm variants in one JVM (one LocalCluster) and both Flink variants in another:
 *                      only for the smoke test (CPU and RSS are then per group)
 * </pre>
 */
public final class E2E {

  /** One child run. */
  public record Run(Variant variant, String tag, int round, long words, double wallSeconds, double cpuSeconds,
      double totalCpuSeconds, long peakRssKb, long heapPeakBytes, String verification, Properties props) {
    /** @return whether the run's counts equal the reference count of the corpus (no {@code verification} text) */
    public boolean verified() {
      return verification == null;
    }

    /** @return the words counted per second of wall time in the timed section, 0 if no time was measured */
    public double wordsPerSecond() {
      return wallSeconds > 0 ? words / wallSeconds : 0;
    }
  }

  /** Everything one harness run measured. */
  public record Report(List<Run> runs, List<Run> latencyRuns, List<Run> scaleRuns, List<String> misses) {
    /** @return whether every throughput, latency and scale run was verified */
    public boolean allVerified() {
      return Stream.of(runs, latencyRuns, scaleRuns).flatMap(List::stream).allMatch(Run::verified);
    }
  }

  private final E2ESettings settings;
  private final PrintStream out;
  private final Map<String, Long> expected;
  private final Path corpus;
  /** The server of the PostgreSQL variants, if any runs. */
  private PostgresServer postgres;
  private String postgresDescription;
  /** The broker of the Kafka variants and the topic holding the corpus, if any runs. */
  private KafkaBroker kafka;
  private String kafkaTopic;

  private E2E(E2ESettings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    long t0 = System.nanoTime();
    this.corpus = Corpus.ensure(settings.out.toAbsolutePath(), settings.sentences);
    this.expected = Corpus.count(corpus);
    out.printf(Locale.ROOT, "corpus %s: %,d sentences, %,d words, %,d distinct (ready in %.1f s)%n", corpus,
        settings.sentences, Counts.total(expected), expected.size(), (System.nanoTime() - t0) / 1e9);
  }

  /**
   * Runs the harness, printing to standard output, and exits with status 1 if any run's counts were wrong, else 0.
   *
   * @param args the harness options described above
   */
  public static void main(String[] args) {
    Report report = run(args, System.out);
    System.exit(report.allVerified() ? 0 : 1);
  }

  /**
   * Runs the harness with {@code args}, printing to {@code out}.
   *
   * @param args the harness options described above
   * @param out where progress, the summary and the results table are printed
   * @return everything measured, with each run's verification
   */
  public static Report run(String[] args, PrintStream out) {
    E2ESettings s = E2ESettings.parse(args);
    out.println("machine: " + machine());
    out.println("load average at start: " + loadAverage());
    E2E e2e = new E2E(s, out);
    try {
      return e2e.runAll();
    } finally {
      if (e2e.postgres != null) {
        e2e.postgres.close();
      }
      if (e2e.kafka != null) {
        e2e.kafka.close();
      }
    }
  }

  private Report runAll() {
    E2ESettings s = settings;
    if (s.needsPostgres()) {
      System.setProperty("org.slf4j.simpleLogger.log.io.zonky.test", "warn");
      postgres = s.jdbcUrl != null
          ? PostgresServer.external(s.jdbcUrl, s.jdbcUser, Optional.ofNullable(System.getenv(
              PostgresServer.PASSWORD_ENV)).orElse(""))
          : PostgresServer.embedded();
      postgresDescription = postgres.describe();
      out.println("PostgreSQL variants on " + postgresDescription);
    }
    if (s.needsKafka()) {
      for (String logger : List.of("kafka", "org.apache.kafka", "state.change.logger")) {
        System.setProperty("org.slf4j.simpleLogger.log." + logger, "warn");
      }
      kafka = s.kafkaBootstrap != null ? KafkaBroker.external(s.kafkaBootstrap) : KafkaBroker.inProcess();
      kafkaTopic = kafka.load(corpus, s.kafkaPartitions, out);
    }
    ChildRunner runner = new ChildRunner(s, out, expected, corpus, postgres, kafka, kafkaTopic);
    List<Run> runs = new ArrayList<>();
    for (int round = 1; round <= s.rounds; round++) {
      List<Variant> pending = new ArrayList<>(s.variants);
      while (!pending.isEmpty()) {
        Variant v = pending.remove(0);
        List<Variant> group = new ArrayList<>(List.of(v));
        if (s.groupPeers && v.peer() != Variant.Peer.PLAIN) {
          pending.stream().filter(o -> o.peer() == v.peer()).forEach(group::add);
          pending.removeAll(group);
        }
        runs.addAll(runner.runChildren(group, "", round, s.xmx, new Options()));
      }
    }
    List<Run> latency = new ArrayList<>();
    for (int b : s.latencyBatches()) {
      latency.add(runner.runChild(Variant.EPOCHAL_ROCKSDB_TX, "batch" + b, 1, s.xmx,
          new Options().put("batch", b)));
    }
    List<Run> scale = new ArrayList<>();
    if (s.scaleKeys() > 0) {
      scale.add(runner.runChild(Variant.EPOCHAL_ROCKSDB_SCALE, "keys100k", 1, s.scaleXmx,
          new Options().put("prefill", 0)));
      scale.add(runner.runChild(Variant.EPOCHAL_ROCKSDB_SCALE, "keys" + s.scaleKeys(), 1, s.scaleXmx,
          new Options().put("prefill", s.scaleKeys())));
    }
    out.println("load average at end: " + loadAverage());
    return new E2EReport(s, out, expected, postgresDescription, kafka, kafkaTopic).summarize(runs, latency, scale);
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  static String machine() {
    return machineShort() + ", " + (Runtime.getRuntime().availableProcessors()) + " cores, "
        + memTotalGb() + " GB RAM, Java " + System.getProperty("java.version") + " ("
        + System.getProperty("java.vm.name") + "), " + System.getProperty("os.name") + " "
        + System.getProperty("os.version");
  }

  static String machineShort() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim() + " × " + Runtime.getRuntime().availableProcessors();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return Runtime.getRuntime().availableProcessors() + " cores";
  }

  private static long memTotalGb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Math.round(Long.parseLong(line.replaceAll("\\D", "")) / 1024.0 / 1024.0);
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return -1;
  }
}
