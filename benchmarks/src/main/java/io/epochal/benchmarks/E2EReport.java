package io.epochal.benchmarks;

import io.epochal.benchmarks.E2E.Report;
import io.epochal.benchmarks.E2E.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The report of one end-to-end harness run ({@link E2E}): the median of each variant's runs, the throughput table
 * with the ratios to the raw loop and to each peer, the PostgreSQL, Kafka, commit latency and scale sections, and the
 * targets met or missed; printed, and written to {@code runs.csv}, {@code summary.csv}, {@code summary.md} and
 * {@code chart.png}. Not thread-safe: used by the harness thread once the runs are done.
 */
final class E2EReport {
  /** Median of the runs of each variant. */
  record Summary(Variant variant, int runs, double wordsPerSecond, double wallSeconds, double cpuSeconds,
      double cpuPerMillionWords, long peakRssMb, boolean verified) {
  }

  private final E2ESettings settings;
  private final PrintStream out;
  private final Map<String, Long> expected;
  /** The PostgreSQL server's description, or null if no PostgreSQL variant ran. */
  private final String postgresDescription;
  /** The broker of the Kafka variants and the topic holding the corpus, or null if none ran. */
  private final KafkaBroker kafka;
  private final String kafkaTopic;

  E2EReport(E2ESettings settings, PrintStream out, Map<String, Long> expected, String postgresDescription,
      KafkaBroker kafka, String kafkaTopic) {
    this.settings = settings;
    this.out = out;
    this.expected = expected;
    this.postgresDescription = postgresDescription;
    this.kafka = kafka;
    this.kafkaTopic = kafkaTopic;
  }

  /** Prints and writes the report of these runs; its misses are the targets missed. */
  Report summarize(List<Run> runs, List<Run> latency, List<Run> scale) {
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
    // The goals of issue 18 ("Performance to the limit"), each a throughput ratio within this run.
    target(md, misses, summaries, "Epochal in-memory exactly-once ≥ 1.0× raw loop", Variant.EPOCHAL_MEM_TX,
        Variant.RAW, 1.0);
    target(md, misses, summaries, "Epochal in-memory opaque (table store, epoch) ≥ 0.8× Epochal in-memory "
        + "transactional", Variant.EPOCHAL_MEM_OPAQUE, Variant.EPOCHAL_MEM_TX, 0.8);
    target(md, misses, summaries, "Epochal RocksDB exactly-once ≥ 1.0× bare RocksDB loop",
        Variant.EPOCHAL_ROCKSDB_TX, Variant.ROCKSDB_BARE, 1.0);
    target(md, misses, summaries, "Epochal RocksDB exactly-once ≥ 3× Flink RocksDB", Variant.EPOCHAL_ROCKSDB_TX,
        Variant.FLINK_ROCKSDB, 3);
    target(md, misses, summaries, "Epochal in-memory exactly-once ≥ 3× Flink heap", Variant.EPOCHAL_MEM_TX,
        Variant.FLINK_HEAP, 3);
    target(md, misses, summaries, "Epochal in-memory exactly-once ≥ 15× Storm Trident (transactional)",
        Variant.EPOCHAL_MEM_TX, Variant.STORM_TX, 15);
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
      boolean ok = ratio >= 0.8;
      if (!ok) {
        misses.add("10M keys within 1.25× of 100k keys");
      }
      md.append(String.format(Locale.ROOT, "| %s keys within 1.25× of 100k keys (throughput ratio ≥ 0.8) | %s | %s |%n",
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
      Files.writeString(dir.resolve("summary.md"), "Machine: " + E2E.machine() + "\n\n" + markdown);
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
        Counts.total(expected), settings.rounds, E2E.machineShort()), bars, chart);
    out.println("wrote " + dir.resolve("runs.csv") + ", summary.csv, summary.md and " + chart);
  }

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
}
