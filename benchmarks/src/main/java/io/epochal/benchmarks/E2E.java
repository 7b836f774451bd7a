package io.epochal.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
  static final List<String> FLINK_JVM_ARGS = List.of(
      "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED");

  /** One child run. */
  public record Run(Variant variant, String tag, int round, long words, double wallSeconds, double cpuSeconds,
      double totalCpuSeconds, long peakRssKb, long heapPeakBytes, String verification, Properties props) {
    public boolean verified() {
      return verification == null;
    }

    public double wordsPerSecond() {
      return wallSeconds > 0 ? words / wallSeconds : 0;
    }
  }

  /** Everything one harness run measured. */
  public record Report(List<Run> runs, List<Run> latencyRuns, List<Run> scaleRuns, List<String> misses) {
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

  public static void main(String[] args) {
    Report report = run(args, System.out);
    System.exit(report.allVerified() ? 0 : 1);
  }

  /** Runs the harness with {@code args}, printing to {@code out}. */
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
        runs.addAll(runChildren(group, "", round, s.xmx, new Options()));
      }
    }
    List<Run> latency = new ArrayList<>();
    for (int b : s.latencyBatches()) {
      latency.add(runChild(Variant.EPOCHAL_ROCKSDB_TX, "batch" + b, 1, s.xmx, new Options().put("batch", b)));
    }
    List<Run> scale = new ArrayList<>();
    if (s.scaleKeys() > 0) {
      scale.add(runChild(Variant.EPOCHAL_ROCKSDB_SCALE, "keys100k", 1, s.scaleXmx,
          new Options().put("prefill", 0)));
      scale.add(runChild(Variant.EPOCHAL_ROCKSDB_SCALE, "keys" + s.scaleKeys(), 1, s.scaleXmx,
          new Options().put("prefill", s.scaleKeys())));
    }
    out.println("load average at end: " + loadAverage());
    return summarize(runs, latency, scale);
  }

  // ------------------------------------------------------------------ one child

  private Run runChild(Variant v, String tag, int round, String xmx, Options options) {
    return runChildren(List.of(v), tag, round, xmx, options).get(0);
  }

  private List<Run> runChildren(List<Variant> variants, String tag, int round, String xmx, Options options) {
    Variant v = variants.get(0);
    String ids = String.join(",", variants.stream().map(Variant::id).toList());
    Path work = settings.out.toAbsolutePath().resolve("runs").resolve(ids.replace(',', '+')
        + (tag.isEmpty() ? "" : "-" + tag) + "-r" + round);
    deleteRecursively(work);
    try {
      Files.createDirectories(work);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path results = work.resolve("results");
    Options opts = new Options().put("threads", settings.threads).put("partitions", settings.partitions)
        .put("inflight", settings.inflight).put("batch", settings.batch);
    if (variants.stream().anyMatch(Variant::onPostgres)) {
      opts.put("jdbc", postgres.jdbcUrl()).put("jdbcUser", postgres.user())
          .put("schema", ("e2e_" + ids + "_" + tag + "_r" + round).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+",
              "_"));
    }
    boolean onKafka = variants.stream().anyMatch(Variant::onKafka);
    if (onKafka) {
      opts.put("kafka", kafka.bootstrap()).put("topic", kafkaTopic).put("topicPartitions", settings.kafkaPartitions);
    }
    opts.asMap().putAll(options.asMap());
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + xmx);
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-Dlog4j2.level=warn");
    if (v.peer() == Variant.Peer.FLINK) {
      cmd.addAll(FLINK_JVM_ARGS);
    }
    for (String a : settings.jvmArgs) {
      cmd.add(a.replace("{run}", work.toString()));
    }
    cmd.add("-cp");
    cmd.add(Classpaths.forPeer(v.peer(), System.getProperty("java.class.path")));
    cmd.add(Child.class.getName());
    cmd.add(ids);
    cmd.add(corpus.toString());
    cmd.add(work.resolve("data").toString());
    cmd.add(results.toString());
    opts.asMap().forEach((k, val) -> cmd.add(k + "=" + val));
    Path log = work.resolve("child.log");
    boolean onPostgres = variants.stream().anyMatch(Variant::onPostgres);
    java.util.OptionalLong serverCpuBefore = onPostgres ? postgres.serverCpuNanos() : java.util.OptionalLong.empty();
    long brokerCpuBefore = Meter.processCpuNanos(); // the in-process broker's (see KafkaBroker)
    long polledRss = -1;
    long polledCpu = 0;
    try {
      Files.createDirectories(results);
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      if (postgres != null) {
        pb.environment().put(PostgresServer.PASSWORD_ENV, postgres.password());
      }
      Process p = pb.start();
      Path status = Path.of("/proc", Long.toString(p.pid()), "status");
      while (!p.waitFor(Duration.ofMillis(50).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        polledRss = Math.max(polledRss, Meter.vmHwmKb(status));
        polledCpu = Math.max(polledCpu, p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    java.util.OptionalLong serverCpuAfter = onPostgres ? postgres.serverCpuNanos() : java.util.OptionalLong.empty();
    String serverCpu = serverCpuBefore.isPresent() && serverCpuAfter.isPresent()
        ? Long.toString(serverCpuAfter.getAsLong() - serverCpuBefore.getAsLong()) : null;
    String brokerCpu = onKafka && kafka.isInProcess() ? Long.toString(Meter.processCpuNanos() - brokerCpuBefore) : null;
    List<Run> out = new ArrayList<>();
    for (Variant each : variants) {
      out.add(collect(each, tag, round, results.resolve(each.id() + ".properties"), log, polledCpu, polledRss,
          variants.size() > 1, serverCpu, brokerCpu));
    }
    if (out.stream().allMatch(Run::verified)) {
      deleteRecursively(work.resolve("data"));
    }
    return out;
  }

  private Run collect(Variant v, String tag, int round, Path result, Path log, long polledCpu, long polledRss,
      boolean grouped, String serverCpuNanos, String brokerCpuNanos) {
    Properties props = new Properties();
    String verification;
    if (Files.exists(result)) {
      try (InputStream in = Files.newInputStream(result)) {
        props.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (!Files.exists(result) || props.getProperty("error") != null) {
      verification = "FAILED: " + props.getProperty("error", "no result") + "; last log lines:\n" + tail(log, 30);
    } else {
      verification = Counts.diff(expected, Counts.read(Path.of(props.getProperty("counts"))));
    }
    long words = Long.parseLong(props.getProperty("words", "0"));
    double wall = Long.parseLong(props.getProperty("wallNanos", "0")) / 1e9;
    double cpu = Long.parseLong(props.getProperty("cpuNanos", "0")) / 1e9;
    long childCpu = Long.parseLong(props.getProperty("totalCpuNanos", "0"));
    double totalCpu = (grouped ? childCpu : Math.max(polledCpu, childCpu)) / 1e9;
    long rss = Math.max(polledRss, Long.parseLong(props.getProperty("vmHwmKb", "-1")));
    long heap = Long.parseLong(props.getProperty("heapPeakBytes", "0"));
    if (serverCpuNanos != null) {
      props.setProperty("serverCpuNanos", serverCpuNanos);
    }
    if (brokerCpuNanos != null) {
      props.setProperty("brokerCpuNanos", brokerCpuNanos);
    }
    Run run = new Run(v, tag, round, words, wall, cpu, totalCpu, rss, heap, verification, props);
    out.printf(Locale.ROOT, "round %d %-24s %-15s %,14.0f words/s  wall %7.2f s  cpu %7.2f s (process %6.2f s)  "
            + "peak RSS %,6d MB  heap peak %,5d MB  %s%n", round, v.id(), tag, run.wordsPerSecond(), wall, cpu,
        totalCpu, rss / 1024, heap >> 20, run.verified() ? "counts verified" : "COUNTS WRONG: " + verification);
    if (serverCpuNanos != null) {
      out.printf(Locale.ROOT, "        %-24s PostgreSQL server CPU over the child's life: %.2f s%n", v.id(),
          Long.parseLong(serverCpuNanos) / 1e9);
    }
    return run;
  }

  // ------------------------------------------------------------------ summary

  /** Median of the runs of each variant. */
  record Summary(Variant variant, int runs, double wordsPerSecond, double wallSeconds, double cpuSeconds,
      double cpuPerMillionWords, long peakRssMb, boolean verified) {
  }

  private Report summarize(List<Run> runs, List<Run> latency, List<Run> scale) {
    Map<Variant, Summary> summaries = new LinkedHashMap<>();
    for (Variant v : settings.variants) {
      List<Run> rs = runs.stream().filter(r -> r.variant() == v).toList();
      if (rs.isEmpty()) {
        continue;
      }
      Run med = rs.stream().sorted(Comparator.comparingDouble(Run::wordsPerSecond)).toList().get(rs.size() / 2);
      double cpuMed = median(rs.stream().mapToDouble(Run::cpuSeconds).toArray());
      summaries.put(v, new Summary(v, rs.size(), med.wordsPerSecond(), med.wallSeconds(), cpuMed,
          med.words() > 0 ? cpuMed / (med.words() / 1e6) : 0,
          (long) median(rs.stream().mapToDouble(r -> r.peakRssKb() / 1024.0).toArray()),
          rs.stream().allMatch(Run::verified)));
    }
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "Word count, %,d sentences (%,d words, %,d distinct), median of %d "
            + "interleaved runs per variant; threads %d, partitions %d, in flight %d, batch %,d sentences.%n%n",
        settings.sentences, Counts.total(expected), expected.size(), settings.rounds, settings.threads,
        settings.partitions, settings.inflight, settings.batch));
    md.append("| variant | words/s | × raw | wall s | CPU s | CPU s per M words | peak RSS MB | counts |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    Summary raw = summaries.get(Variant.RAW);
    for (Summary s : summaries.values()) {
      md.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %.2f | %.2f | %.2f | %,d | %s |%n",
          s.variant().label(), s.wordsPerSecond(), raw == null ? "-" : fmt(s.wordsPerSecond() / raw.wordsPerSecond()),
          s.wallSeconds(), s.cpuSeconds(), s.cpuPerMillionWords(), s.peakRssMb(),
          s.verified() ? "verified" : "WRONG"));
    }
    List<Variant> peers = Stream.of(Variant.RAW, Variant.ROCKSDB_BARE, Variant.PG_BARE, Variant.KAFKA_PLAIN,
        Variant.STORM_TX,
        Variant.STORM_OPAQUE, Variant.FLINK_HEAP, Variant.FLINK_ROCKSDB).filter(summaries::containsKey).toList();
    md.append("\nThroughput ratios (row ÷ column):\n\n| | ");
    peers.forEach(p -> md.append(p.id()).append(" | "));
    md.append("\n| --- |");
    peers.forEach(p -> md.append(" ---: |"));
    md.append('\n');
    for (Summary s : summaries.values()) {
      if (!s.variant().id().startsWith("epochal")) {
        continue;
      }
      md.append("| ").append(s.variant().id()).append(" | ");
      for (Variant p : peers) {
        md.append(fmt(s.wordsPerSecond() / summaries.get(p).wordsPerSecond())).append(" | ");
      }
      md.append('\n');
    }
    if (postgresDescription != null) {
      md.append("\nPostgreSQL variants on ").append(postgresDescription).append(", in the same run.");
      if (summaries.containsKey(Variant.PG_BARE)) {
        md.append(" The bare JDBC loop writes each batch in one transaction: `").append(BarePostgresLoop.UPSERT_TEXT)
            .append("` (the counts are added on the server, never read back), then the committed txid, then "
                + "COMMIT.");
      }
      md.append('\n');
      List<Summary> pg = summaries.values().stream().filter(x -> x.variant().onPostgres()).toList();
      if (pg.stream().allMatch(x -> medianServerCpu(runs, x.variant()) >= 0)) {
        md.append("\nCPU of the client (the child JVM, timed section) and of the PostgreSQL server (all its processes "
            + "over the child's life):\n\n| variant | words/s | client CPU s | server CPU s | client + server CPU s "
            + "per M words |\n| --- | ---: | ---: | ---: | ---: |\n");
        for (Summary x : pg) {
          double server = medianServerCpu(runs, x.variant());
          md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %.2f |%n", x.variant().id(),
              x.wordsPerSecond(), x.cpuSeconds(), server,
              (x.cpuSeconds() + server) / (Counts.total(expected) / 1e6)));
        }
      }
    }
    if (kafka != null) {
      KafkaSummary.append(md, kafka.describe(), kafkaTopic, settings, summaries, runs);
    }
    if (!latency.isEmpty()) {
      md.append("\nCommit latency of Epochal RocksDB (transactional, epoch protocol) per batch size "
          + "(BatchReport.commitNanos: state writes + the atomic RocksDB commit):\n\n"
          + "| batch (sentences) | words per batch | batches | p50 ms | p99 ms | max ms | words/s |\n"
          + "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
      for (Run r : latency) {
        int b = Integer.parseInt(r.tag().substring("batch".length()));
        md.append(String.format(Locale.ROOT, "| %,d | %,d | %s | %.2f | %.2f | %.2f | %,.0f |%n", b,
            b * Corpus.WORDS_PER_SENTENCE, r.props().getProperty("batches", "?"),
            micros(r, "commitP50Micros"), micros(r, "commitP99Micros"), micros(r, "commitMaxMicros"),
            r.wordsPerSecond()));
      }
    }
    List<String> misses = new ArrayList<>();
    md.append("\nTargets (same run):\n\n| target | measured | |\n| --- | ---: | --- |\n");
    target(md, misses, summaries, "Epochal in-memory exactly-once ≥ 0.7× raw loop", Variant.EPOCHAL_MEM_TX,
        Variant.RAW, 0.7);
    target(md, misses, summaries, "Epochal in-memory exactly-once ≥ 20× Storm Trident (transactional)",
        Variant.EPOCHAL_MEM_TX, Variant.STORM_TX, 20);
    target(md, misses, summaries, "Epochal in-memory opaque ≥ 20× Storm Trident (opaque)",
        Variant.EPOCHAL_MEM_OPAQUE, Variant.STORM_OPAQUE, 20);
    target(md, misses, summaries, "Epochal RocksDB exactly-once ≥ 0.8× bare RocksDB loop",
        Variant.EPOCHAL_ROCKSDB_TX, Variant.ROCKSDB_BARE, 0.8);
    target(md, misses, summaries, "Epochal RocksDB exactly-once ≥ 5× Flink RocksDB", Variant.EPOCHAL_ROCKSDB_TX,
        Variant.FLINK_ROCKSDB, 5);
    target(md, misses, summaries, "Epochal PostgreSQL exactly-once ≥ 0.8× bare JDBC loop", Variant.EPOCHAL_PG_TX,
        Variant.PG_BARE, 0.8);
    target(md, misses, summaries, "Epochal Kafka exactly-once (transactional spout, RocksDB) ≥ 0.8× plain "
        + "KafkaConsumer loop", Variant.EPOCHAL_KAFKA_TX, Variant.KAFKA_PLAIN, 0.8);
    target(md, misses, summaries, "Epochal Kafka exactly-once (opaque spout, RocksDB) ≥ 0.8× plain KafkaConsumer "
        + "loop", Variant.EPOCHAL_KAFKA_OPAQUE, Variant.KAFKA_PLAIN, 0.8);
    if (scale.size() == 2) {
      Run small = scale.get(0);
      Run big = scale.get(1);
      double ratio = big.wordsPerSecond() / small.wordsPerSecond();
      boolean ok = ratio >= 0.5;
      if (!ok) {
        misses.add("10M keys within 2× of 100k keys");
      }
      md.append(String.format(Locale.ROOT, "| %s keys within 2× of 100k keys (throughput ratio ≥ 0.5) | %s | %s |%n",
          humanKeys(settings.scaleKeys()), fmt(ratio), ok ? "met" : "**missed**"));
      md.append(String.format(Locale.ROOT, "%nScale (Epochal RocksDB transactional, -Xmx%s, same corpus; the large "
              + "state is prefilled through the pipeline with %s distinct keys before the timed run):%n%n"
              + "| state | words/s | heap peak MB | heap after GC MB | peak RSS MB | counts |%n"
              + "| --- | ---: | ---: | ---: | ---: | --- |%n", settings.scaleXmx, humanKeys(settings.scaleKeys())));
      for (Run r : scale) {
        md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,d | %,d | %,d | %s |%n",
            r.tag().equals("keys100k") ? String.format("%,d keys (corpus only)", expected.size())
                : humanKeys(settings.scaleKeys()) + " prefilled + corpus",
            r.wordsPerSecond(), r.heapPeakBytes() >> 20,
            Long.parseLong(r.props().getProperty("heapAfterGcBytes", "0")) >> 20, r.peakRssKb() / 1024,
            r.verified() ? "verified" : "WRONG"));
      }
    }
    String text = md.toString();
    out.println();
    out.println(text);
    writeFiles(runs, latency, scale, summaries, text);
    for (Run r : Stream.of(runs, latency, scale).flatMap(List::stream).toList()) {
      if (!r.verified()) {
        out.println("NOT VERIFIED: " + r.variant().id() + " " + r.tag() + " round " + r.round() + ": "
            + r.verification());
      }
    }
    return new Report(runs, latency, scale, misses);
  }

  /** Median server CPU seconds of a PostgreSQL variant's runs, or -1 if unknown. */
  private static double medianServerCpu(List<Run> runs, Variant v) {
    double[] cpu = runs.stream().filter(r -> r.variant() == v)
        .mapToDouble(r -> Double.parseDouble(r.props().getProperty("serverCpuNanos", "-1e9")) / 1e9).toArray();
    return cpu.length == 0 || Arrays.stream(cpu).anyMatch(c -> c < 0) ? -1 : median(cpu);
  }

  private static void target(StringBuilder md, List<String> misses, Map<Variant, Summary> s, String name,
      Variant a, Variant b, double min) {
    if (!s.containsKey(a) || !s.containsKey(b)) {
      return;
    }
    double ratio = s.get(a).wordsPerSecond() / s.get(b).wordsPerSecond();
    boolean ok = ratio >= min;
    if (!ok) {
      misses.add(name);
    }
    md.append("| ").append(name).append(" | ").append(fmt(ratio)).append(" | ").append(ok ? "met" : "**missed**")
        .append(" |\n");
  }

  private void writeFiles(List<Run> runs, List<Run> latency, List<Run> scale, Map<Variant, Summary> summaries,
      String markdown) {
    Path dir = settings.out.toAbsolutePath();
    StringBuilder csv = new StringBuilder("kind,variant,tag,round,words,wall_s,words_per_s,cpu_s,process_cpu_s,"
        + "peak_rss_mb,heap_peak_mb,commit_p50_ms,commit_p99_ms,verified\n");
    for (List<Run> list : List.of(runs, latency, scale)) {
      String kind = list == runs ? "compare" : list == latency ? "latency" : "scale";
      for (Run r : list) {
        csv.append(String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%.3f,%.0f,%.3f,%.3f,%d,%d,%.3f,%.3f,%s%n", kind,
            r.variant().id(), r.tag(), r.round(), r.words(), r.wallSeconds(), r.wordsPerSecond(), r.cpuSeconds(),
            r.totalCpuSeconds(), r.peakRssKb() / 1024, r.heapPeakBytes() >> 20, micros(r, "commitP50Micros"),
            micros(r, "commitP99Micros"), r.verified()));
      }
    }
    StringBuilder sum = new StringBuilder("variant,runs,words_per_s,wall_s,cpu_s,cpu_s_per_m_words,peak_rss_mb,"
        + "ratio_to_raw,verified\n");
    Summary raw = summaries.get(Variant.RAW);
    for (Summary s : summaries.values()) {
      sum.append(String.format(Locale.ROOT, "%s,%d,%.0f,%.3f,%.3f,%.3f,%d,%s,%s%n", s.variant().id(), s.runs(),
          s.wordsPerSecond(), s.wallSeconds(), s.cpuSeconds(), s.cpuPerMillionWords(), s.peakRssMb(),
          raw == null ? "" : String.format(Locale.ROOT, "%.3f", s.wordsPerSecond() / raw.wordsPerSecond()),
          s.verified()));
    }
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("runs.csv"), csv);
      Files.writeString(dir.resolve("summary.csv"), sum);
      Files.writeString(dir.resolve("summary.md"), "Machine: " + machine() + "\n\n" + markdown);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Chart.Bar> bars = new ArrayList<>();
    for (Summary s : summaries.values()) {
      bars.add(new Chart.Bar(s.variant().label(), s.wordsPerSecond(), Chart.colorOf(s.variant().id()),
          raw == null ? null : fmt(s.wordsPerSecond() / raw.wordsPerSecond()) + " raw"));
    }
    Path chart = settings.chart != null ? settings.chart : dir.resolve("chart.png");
    Chart.draw(String.format(Locale.ROOT, "Exactly-once word count, %,d words, median of %d runs (%s)",
        Counts.total(expected), settings.rounds, machineShort()), bars, chart);
    out.println("wrote " + dir.resolve("runs.csv") + ", summary.csv, summary.md and " + chart);
  }

  // ------------------------------------------------------------------ helpers

  private static double micros(Run r, String key) {
    String v = r.props().getProperty(key);
    return v == null ? Double.NaN : Long.parseLong(v) / 1000.0;
  }

  private static String fmt(double ratio) {
    return String.format(Locale.ROOT, ratio >= 10 ? "%.0f×" : ratio >= 1 ? "%.2f×" : "%.3f×", ratio);
  }

  private static String humanKeys(long keys) {
    return keys >= 1_000_000 && keys % 1_000_000 == 0 ? keys / 1_000_000 + "M"
        : keys >= 1000 && keys % 1000 == 0 ? keys / 1000 + "k" : Long.toString(keys);
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length == 0 ? 0 : v[v.length / 2];
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

  private static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | RuntimeException e) {
      return "(no log: " + e + ")";
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
