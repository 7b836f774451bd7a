package io.epochal.benchmarks;

import io.epochal.benchmarks.E2E.Run;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Runs variants of the end-to-end comparison ({@link E2E}) in child JVMs: the child's command line (pipeline settings,
 * the PostgreSQL schema and Kafka topic of its run, Flink's module flags), its CPU and peak RSS polled while it runs,
 * then its result file read back and its counts checked against the recount of the corpus. Each run gets its own
 * work directory under {@code --out}/runs, whose data is deleted once the run is verified. Not thread-safe: used by
 * the harness thread.
 */
final class ChildRunner {
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

  private final E2ESettings settings;
  private final PrintStream out;
  private final Map<String, Long> expected;
  private final Path corpus;
  /** The server of the PostgreSQL variants, or null if none runs. */
  private final PostgresServer postgres;
  /** The broker of the Kafka variants and the topic holding the corpus, or null if none runs. */
  private final KafkaBroker kafka;
  private final String kafkaTopic;

  ChildRunner(E2ESettings settings, PrintStream out, Map<String, Long> expected, Path corpus, PostgresServer postgres,
      KafkaBroker kafka, String kafkaTopic) {
    this.settings = settings;
    this.out = out;
    this.expected = expected;
    this.corpus = corpus;
    this.postgres = postgres;
    this.kafka = kafka;
    this.kafkaTopic = kafkaTopic;
  }

  Run runChild(Variant v, String tag, int round, String xmx, Options options) {
    return runChildren(List.of(v), tag, round, xmx, options).get(0);
  }

  List<Run> runChildren(List<Variant> variants, String tag, int round, String xmx, Options options) {
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
