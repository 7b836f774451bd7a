package io.epochal.examples;

import io.epochal.errors.EpochalException;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableStores;
import io.epochal.store.ytsaurus.YtTableStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The examples' command line:
 *
 * <pre>
 * word-count      [--sentences N] [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * banner-counters [--events N]    [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * common:         [--partitions P] [--threads T] [--in-flight F] [--seed S] [--store memory]
 * </pre>
 *
 * Prints progress, then the top counts, the replays survived and the throughput, and verifies the final counts
 * against a plain recount of the input (exit code 1 on a mismatch, 2 on a usage or pipeline error).
 */
public final class Main {
  private Main() {
  }

  /** Parsed options. */
  record Options(String command, long count, double failureRate, String spout, int batchSize, int partitions,
      int threads, int inFlight, long seed, String store, Path stateDir, String proxy, String root,
      boolean fresh) {
  }

  public static void main(String[] args) {
    int code;
    try {
      code = args.length >= 2 && args[0].equals("state") && args[1].equals("dump")
          ? StateDump.run(Arrays.copyOfRange(args, 2, args.length))
          : run(parse(args));
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println(usage());
      code = 2;
    } catch (EpochalException e) {
      System.err.println("pipeline stopped: " + e.getMessage());
      code = 2;
    }
    System.exit(code);
  }

  static String usage() {
    return """
        usage: word-count      [--sentences N] [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
               banner-counters [--events N]    [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
               common options: [--partitions P] [--threads T] [--in-flight F] [--seed S]
                               [--store rocksdb|memory|yt] [--state-dir DIR] [--fresh true]
                               [--proxy HOST:PORT --root //home/...]   (for --store yt)
               state dump --state-dir DIR [--table PIPELINE/STATE]   (print keys, values and txids)""";
  }

  static Options parse(String[] args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("missing command");
    }
    String command = args[0];
    if (!command.equals("word-count") && !command.equals("banner-counters")) {
      throw new IllegalArgumentException("unknown command '" + command + "'");
    }
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --option value, got '" + a + "'");
      }
      opts.put(a.substring(2), args[++i]);
    }
    long count = Long.parseLong(opts.getOrDefault(command.equals("word-count") ? "sentences" : "events",
        "200000"));
    Options o = new Options(command, count,
        Double.parseDouble(opts.getOrDefault("failure-rate", "0")),
        opts.getOrDefault("spout", "transactional"),
        Integer.parseInt(opts.getOrDefault("batch-size", "5000")),
        Integer.parseInt(opts.getOrDefault("partitions", "4")),
        Integer.parseInt(opts.getOrDefault("threads", "2")),
        Integer.parseInt(opts.getOrDefault("in-flight", "2")),
        Long.parseLong(opts.getOrDefault("seed", "42")),
        opts.getOrDefault("store", "rocksdb"),
        Path.of(opts.getOrDefault("state-dir",
            Path.of(System.getProperty("java.io.tmpdir"), "epochal-state", command).toString())),
        opts.get("proxy"),
        opts.getOrDefault("root", "//home/epochal"),
        Boolean.parseBoolean(opts.getOrDefault("fresh", "false")));
    for (String k : opts.keySet()) {
      if (!List.of("sentences", "events", "failure-rate", "spout", "batch-size", "partitions", "threads",
          "in-flight", "seed", "store", "state-dir", "proxy", "root", "fresh").contains(k)) {
        throw new IllegalArgumentException("unknown option --" + k);
      }
    }
    if (!o.spout().equals("transactional") && !o.spout().equals("opaque")) {
      throw new IllegalArgumentException("--spout must be transactional or opaque");
    }
    if (o.count() < 0 || o.batchSize() < 1) {
      throw new IllegalArgumentException("counts must be >= 0 and --batch-size >= 1");
    }
    return o;
  }

  static int run(Options o) {
    RandomFaults faults = new RandomFaults(o.failureRate(), o.seed());
    try (ExampleStore store = openStore(o)) {
      System.out.printf("%s: %,d %s, %s spout, batch size %,d, %d partitions, %d threads, %d in flight,"
              + " failure rate %.2f%nstore: %s%n", o.command(), o.count(),
          o.command().equals("word-count") ? "sentences" : "events", o.spout(), o.batchSize(), o.partitions(),
          o.threads(), o.inFlight(), o.failureRate(), store.describe());
      if (store instanceof TableExampleStore table && table.committedTxid() > 0) {
        System.out.printf("resuming: the store holds this pipeline's batches up to committed txid %,d;"
            + " continuing after it%n", table.committedTxid());
      }
      Example example = o.command().equals("word-count") ? new WordCount(o) : new BannerCounters(o);
      Progress progress = new Progress();
      long started = System.nanoTime();
      RunSummary summary;
      long replays;
      try (Pipeline pipeline = example.build(Pipeline.newBuilder(o.command())
          .partitions(o.partitions())
          .threads(o.threads())
          .maxBatchesInFlight(o.inFlight())
          .retryPolicy(new RetryPolicy(100, Duration.ofMillis(1), Duration.ofMillis(20)))
          .listener(progress)
          .checkpointStore(store.checkpoints(faults)), store, faults)) {
        summary = pipeline.runUntilIdle();
        replays = pipeline.metrics().failedAttempts();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      System.out.printf("committed %,d batches (txid %d), %,d records in %.2f s%n", summary.batches(),
          summary.lastTxid(), summary.records(), seconds);
      Map<String, Map<String, Object>> actual = new LinkedHashMap<>();
      for (String state : example.states()) {
        actual.put(state, store.read(state));
        printTop(state, store.read(state));
      }
      System.out.printf("replays survived: %,d (injected failures: %,d)%n", replays, faults.injected());
      if (summary.records() == 0) {
        System.out.println("nothing new to process: every input batch was already committed");
      } else {
        double share = o.count() == 0 ? 0 : (double) summary.records() / o.count();
        System.out.printf("%s/s: %,.0f%n", example.unit(), example.units() * share / seconds);
      }
      Map<String, Map<String, Object>> expected = example.recount();
      if (!expected.equals(actual)) {
        for (String state : expected.keySet()) {
          if (!Objects.equals(expected.get(state), actual.get(state))) {
            System.out.println("MISMATCH in state '" + state + "': " + diff(expected.get(state),
                actual.get(state)));
          }
        }
        return 1;
      }
      System.out.println("counts verified: every state equals a plain recount of the input");
      return 0;
    }
  }

  private static ExampleStore openStore(Options o) {
    switch (o.store()) {
      case "memory":
        return new TableExampleStore(TableStores.inMemory(), "in-memory tables", o.command());
      case "memory-maps":
        return ExampleStore.inMemory();
      case "rocksdb":
        RunParameters.check(o);
        return new TableExampleStore(RocksDbTableStore.builder(o.stateDir()).build(),
            "RocksDB at " + o.stateDir(), o.command());
      case "yt":
        if (o.proxy() == null) {
          throw new IllegalArgumentException("--store yt needs --proxy HOST:PORT (and YT_TOKEN or ~/.yt/token)");
        }
        return new TableExampleStore(YtTableStore.builder(o.proxy()).root(o.root()).build(),
            "YTsaurus " + o.proxy() + " " + o.root(), o.command());
      default:
        throw new IllegalArgumentException("unknown --store '" + o.store() + "' (rocksdb, memory, memory-maps, yt)");
    }
  }

  private static void printTop(String state, Map<String, Object> values) {
    List<Map.Entry<String, Object>> entries = new ArrayList<>(values.entrySet());
    entries.sort(Comparator.comparing((Map.Entry<String, Object> e) -> -toLong(e.getValue()))
        .thenComparing(Map.Entry::getKey));
    System.out.printf("top of '%s' (%,d keys):%n", state, values.size());
    for (Map.Entry<String, Object> e : entries.subList(0, Math.min(10, entries.size()))) {
      System.out.printf("  %-14s %,d%n", e.getKey(), toLong(e.getValue()));
    }
  }

  private static long toLong(Object v) {
    return v instanceof Number n ? n.longValue() : 0;
  }

  private static String diff(Map<String, Object> expected, Map<String, Object> actual) {
    List<String> out = new ArrayList<>();
    for (String k : expected.keySet()) {
      if (!Objects.equals(expected.get(k), actual.get(k)) && out.size() < 10) {
        out.add(k + ": expected " + expected.get(k) + ", got " + actual.get(k));
      }
    }
    for (String k : actual.keySet()) {
      if (!expected.containsKey(k) && out.size() < 10) {
        out.add(k + ": unexpected " + actual.get(k));
      }
    }
    return String.join("; ", out);
  }

  /** One runnable example. */
  interface Example {
    Pipeline build(io.epochal.pipeline.PipelineBuilder builder, ExampleStore store, RandomFaults faults);

    List<String> states();

    Map<String, Map<String, Object>> recount();

    String unit();

    long units();
  }

  /** Prints a progress line at most once a second. */
  static final class Progress implements PipelineListener {
    private long lastPrint = System.nanoTime();
    private long records;
    private long failures;

    @Override
    public void onBatchCommitted(BatchReport report) {
      records += report.records();
      long now = System.nanoTime();
      if (now - lastPrint > 1_000_000_000L) {
        lastPrint = now;
        System.out.printf("  ... txid %,d committed, %,d records, %,d failed attempts replayed%n", report.txid(),
            records, failures);
      }
    }

    @Override
    public void onAttemptFailed(io.epochal.spout.BatchAttempt attempt, Throwable cause) {
      failures++;
    }
  }
}
