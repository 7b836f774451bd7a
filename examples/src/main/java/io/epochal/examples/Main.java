package io.epochal.examples;

import io.epochal.errors.EpochalException;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.ytsaurus.YtTableStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * The examples' command line:
 *
 * <pre>
 * word-count      [--sentences N] [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * banner-counters [--events N]    [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * common:         [--partitions P] [--threads T] [--in-flight F] [--seed S] [--store rocksdb|memory|memory-maps|yt]
 *                 [--metrics-port P]   (serve the run's meters for Prometheus at http://HOST:P/metrics)
 *                 [--state-dir DIR] [--fresh true|false]   (--store rocksdb)
 *                 [--proxy HOST:PORT --root //home/...]   (--store yt)
 *                 [--jdbc-url jdbc:postgresql://HOST:PORT/DB --db-user USER]   (--store postgres; password from
 *                 the PGPASSWORD environment variable)
 * ad-join --bootstrap HOST:PORT --shows-topic T --clicks-topic T --factors-topic T --out-topic T   (see AdJoin)
 * produce word-count|banner-counters|ad-join --bootstrap HOST:PORT ...
 * state dump --state-dir DIR [--table PIPELINE/STATE]
 * </pre>
 *
 * Prints progress, then the top counts, the replays survived and the throughput, and verifies the final counts
 * against a plain recount of the input. Exit codes ({@link #usage()} lists them too):
 * <ul>
 *   <li>{@value #OK}: the counts equal the recount ({@code state dump}: every row was printed);</li>
 *   <li>{@value #WRONG_STATE}: the counts differ from the recount ({@code state dump}: some rows cannot be read; each
 *       is printed as an {@code ERROR} line naming its key);</li>
 *   <li>{@value #USAGE}: a bad command line; one line on stderr names the option, and nothing was created or
 *       changed;</li>
 *   <li>{@value #FAILED}: the run stopped on an error (a damaged, busy or unusable state directory, a store or
 *       pipeline error); one line on stderr says what happened and what to do.</li>
 * </ul>
 */
public final class Main {
  /** Exit code: the counts equal the recount; {@code state dump}: every row was printed. */
  static final int OK = 0;
  /** Exit code: the counts differ from the recount; {@code state dump}: some rows cannot be read. */
  static final int WRONG_STATE = 1;
  /** Exit code: a bad command line (one line on stderr names the option; nothing created). */
  static final int USAGE = 2;
  /** Exit code: the run stopped on an error (store, state directory, pipeline). */
  static final int FAILED = 3;

  private Main() {
  }

  /**
   * Parsed options. {@code spout} is the spout kind, of the generated input ({@code --spout}) or of the Kafka input
   * ({@code --kafka-kind}); {@code kafka} is present with {@code --bootstrap}; {@code metricsPort} with
   * {@code --metrics-port} (0: any free port).
   */
  record Options(String command, long count, double failureRate, String spout, int batchSize, int partitions,
      int threads, int inFlight, long seed, String store, Path stateDir, String proxy, String root,
      boolean fresh, String jdbcUrl, String dbUser, Optional<KafkaInput.Settings> kafka, OptionalInt metricsPort) {
  }

  /** A bad command line: its message is the one line printed, naming the option. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /**
   * Runs the command line and exits the JVM with its exit code ({@link #usage()} lists both).
   *
   * @param args the command line, e.g. {@code word-count --sentences 200000}
   */
  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /**
   * Runs the command line {@code args}, printing to {@code out} and {@code err}.
   *
   * @return the exit code ({@link #OK}, {@link #WRONG_STATE}, {@link #USAGE} or {@link #FAILED})
   */
  static int execute(String[] args, PrintStream out, PrintStream err) {
    try {
      if (args.length == 1 && List.of("--help", "-h", "help").contains(args[0])) {
        out.println(usage());
        return OK;
      }
      if (args.length >= 1 && args[0].equals("state")) {
        if (args.length < 2 || !args[1].equals("dump")) {
          throw new UsageException("unknown command 'state" + (args.length < 2 ? "" : " " + args[1])
              + "' (did you mean 'state dump'?)");
        }
        return StateDump.run(Arrays.copyOfRange(args, 2, args.length), out, err);
      }
      if (args.length >= 2 && args[0].equals("produce") && args[1].equals("ad-join")) {
        return AdJoin.produce(Arrays.copyOfRange(args, 2, args.length), out);
      }
      if (args.length >= 1 && args[0].equals("ad-join")) {
        return AdJoin.run(CommandLine.parse(args), out);
      }
      if (args.length >= 1 && args[0].equals("produce")) {
        return Produce.run(Arrays.copyOfRange(args, 1, args.length), out);
      }
      return run(CommandLine.parse(args), out);
    } catch (UsageException e) {
      err.println("error: " + oneLine(e.getMessage()) + " (--help prints the usage)");
      return USAGE;
    } catch (EpochalException e) {
      err.println("error: " + oneLine(e.getMessage()));
      return FAILED;
    } catch (RuntimeException e) {
      err.println("error: " + oneLine(String.valueOf(e)));
      return FAILED;
    }
  }

  static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ');
  }

  static String usage() {
    return """
        usage: word-count      [--sentences N] [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
               banner-counters [--events N]    [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
               common options: [--partitions P] [--threads T] [--in-flight F] [--seed S]
                               [--store rocksdb|memory|memory-maps|yt|postgres]
                               [--state-dir DIR] [--fresh true|false]   (for --store rocksdb, the default)
                               [--proxy HOST:PORT --root //home/...]   (for --store yt)
                               [--jdbc-url jdbc:postgresql://HOST:PORT/DB [--db-user USER]]   (for --store
                               postgres; the password comes from the PGPASSWORD environment variable)
                               [--metrics-port P]   serve the run's meters (pipeline, store) for Prometheus at
                                                    http://HOST:P/metrics while it runs (0: any free port)
               Kafka input instead of the generated one (no --sentences/--events, --seed, --spout):
                 word-count      --bootstrap HOST:PORT --topic NAME
                 banner-counters --bootstrap HOST:PORT --shows-topic NAME --clicks-topic NAME
                                 (shows: key show id, value banner id; clicks: key show id)
                 [--kafka-kind transactional|opaque]   the Kafka spout (default transactional)
                 [--until end|idle|stop]   end (default): stop once every partition reached the end offset it
                                      had at the start (read_committed); idle: at the first batch with nothing
                                      new; stop: keep reading new records until SIGTERM or Ctrl-C, which finish
                                      the batch being committed, then verify and exit
                 --batch-size B is then the most records of one Kafka partition per batch; the counts are verified
                 against the records below the committed offsets, read back from the topics (read_committed)
               produce word-count      --bootstrap HOST:PORT --topic NAME [--sentences N] [--seed S]
               produce banner-counters --bootstrap HOST:PORT --shows-topic NAME --clicks-topic NAME [--events N]
                                       [--seed S]
                 [--topic-partitions P]   writes the generated input to the topics (creating missing ones with P
                                          partitions, default 4)
               ad-join --bootstrap HOST:PORT --shows-topic NAME --clicks-topic NAME --factors-topic NAME
                       --out-topic NAME [--kafka-kind K] [--batch-size B] [the common options, but --store
                       memory-maps, --seed, --failure-rate, --metrics-port]
                 joins clicks and factors to their shows in event time (one hour), writes each show's result to
                 the output topic exactly once, and verifies the topic (read_committed) and the counts against a
                 batch recomputation of the input below the committed offsets
               produce ad-join --bootstrap HOST:PORT --shows-topic NAME --clicks-topic NAME --factors-topic NAME
                       [--shows N] [--seed S] [--topic-partitions P] [--out-topic NAME] [--show-gap-ms G]
                       (generated shows G to 2G ms apart, default 500, clicks, factors and end ticks; a missing
                       --out-topic is created empty)
               state dump --state-dir DIR [--table PIPELINE/STATE]   (print keys, values and txids, read-only)
        exit codes: 0 counts verified (state dump: every row printed; produce: every record written)
                    1 counts differ from a plain recount (state dump: some rows cannot be read, see ERROR lines)
                    2 bad command line (or a topic that does not exist): one line on stderr names the option;
                      nothing was created or changed
                    3 the run stopped on an error (state directory damaged, busy or unusable; store or pipeline
                      error; Kafka unreachable): one line on stderr says what happened and what to do""";
  }

  static int run(Options o, PrintStream out) {
    Optional<StopOnSignal> stop = o.kafka().filter(k -> k.until().equals("stop"))
        .map(k -> StopOnSignal.install(out));
    int code = FAILED;
    try {
      code = run(o, out, stop);
      return code;
    } finally {
      int c = code;
      stop.ifPresent(s -> s.finish(c));
    }
  }

  private static int run(Options o, PrintStream out, Optional<StopOnSignal> stop) {
    // The metrics port, then Kafka: a busy port, an unreachable broker or a missing topic stops the run before any
    // store is opened or created.
    Optional<MetricsEndpoint> metrics = o.metricsPort().isPresent()
        ? Optional.of(MetricsEndpoint.start(o.metricsPort().getAsInt(), out)) : Optional.empty();
    try {
      Optional<KafkaInput> kafka = o.kafka().map(KafkaInput::open);
      try {
        return run(o, kafka, metrics, stop, out);
      } finally {
        kafka.ifPresent(KafkaInput::close);
      }
    } finally {
      metrics.ifPresent(MetricsEndpoint::close);
    }
  }

  private static int run(Options o, Optional<KafkaInput> kafka, Optional<MetricsEndpoint> metrics,
      Optional<StopOnSignal> stop, PrintStream out) {
    RandomFaults faults = new RandomFaults(o.failureRate(), o.seed());
    UnaryOperator<TableStore> meter = s -> metrics.map(m -> m.meter(s, o.store())).orElse(s);
    try (ExampleStore store = openStore(o, meter)) {
      String input = kafka.map(KafkaInput::describe).orElse(String.format("%,d generated %s", o.count(),
          o.command().equals("word-count") ? "sentences" : "events"));
      out.printf("%s: %s, %s spout, batch size %,d%s, %d partitions, %d threads, %d in flight,"
              + " failure rate %.2f%nstore: %s%n", o.command(), input, o.spout(), o.batchSize(),
          kafka.isPresent() ? " per Kafka partition" : "", o.partitions(), o.threads(), o.inFlight(),
          o.failureRate(), store.describe());
      if (store instanceof TableExampleStore table && table.committedTxid() > 0) {
        out.printf("resuming: the store holds this pipeline's batches up to committed txid %,d;"
            + " continuing after it%n", table.committedTxid());
      }
      Example example = o.command().equals("word-count") ? new WordCount(o, kafka) : new BannerCounters(o, kafka);
      long total = kafka.isPresent() ? 0 : o.count();
      Progress progress = kafka.isPresent()
          ? new Progress(out, Progress.isTerminal(out), 0, "records", 1, System::nanoTime)
          : new Progress(out, Progress.isTerminal(out), total, example.unit(),
              total == 0 ? 1 : (double) example.units() / total, System::nanoTime);
      long started = System.nanoTime();
      RunSummary summary;
      long replays;
      PipelineBuilder builder = Pipeline.newBuilder(o.command())
          .partitions(o.partitions())
          .threads(o.threads())
          .maxBatchesInFlight(o.inFlight())
          .retryPolicy(new RetryPolicy(maxAttempts(o.failureRate()), Duration.ofMillis(1), Duration.ofMillis(20)))
          .listener(progress)
          .checkpointStore(store.checkpoints(faults));
      metrics.ifPresent(m -> builder.listener(m.listener(o.command())));
      metrics.ifPresent(m -> kafka.ifPresent(k -> k.onSpout(spout -> m.bindLag(o.command(), spout))));
      try (Pipeline pipeline = example.build(builder, store, faults)) {
        if (stop.isPresent()) {
          stop.get().running(pipeline);
          out.println("running until stopped: SIGTERM or Ctrl-C finishes the batch being committed, then verifies");
          summary = runUntilStopped(pipeline, stop.get(), o);
        } else {
          summary = kafka.isPresent() && kafka.get().settings().until().equals("end")
              ? runToStartEnds(pipeline, kafka.get(), store, o) : pipeline.runUntilIdle();
        }
        replays = pipeline.metrics().failedAttempts();
      } finally {
        progress.finish();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      out.printf("committed %,d batches (txid %d), %,d records in %.2f s%n", summary.batches(),
          summary.lastTxid(), summary.records(), seconds);
      Map<String, Map<String, Object>> actual = new LinkedHashMap<>();
      for (String state : example.states()) {
        actual.put(state, store.read(state));
        printTop(out, state, actual.get(state));
      }
      out.printf("replays survived: %,d (injected failures: %,d)%n", replays, faults.injected());
      if (summary.records() == 0) {
        out.println("nothing new to process: every input batch was already committed");
      } else if (kafka.isPresent()) {
        out.printf("records/s: %,.0f%n", summary.records() / seconds);
      } else {
        double share = o.count() == 0 ? 0 : (double) summary.records() / o.count();
        out.printf("%s/s: %,.0f%n", example.unit(), example.units() * share / seconds);
      }
      Map<String, Map<String, Object>> expected = example.recount(store);
      actual.values().forEach(m -> m.values().removeIf(v -> v instanceof Long n && n == 0)); // no count = 0
      if (!expected.equals(actual)) {
        for (String state : expected.keySet()) {
          if (!Objects.equals(expected.get(state), actual.get(state))) {
            out.println("MISMATCH in state '" + state + "': " + diff(expected.get(state),
                actual.get(state)));
          }
        }
        return WRONG_STATE;
      }
      out.println(kafka.isPresent()
          ? "counts verified: every state equals a plain recount of the records below the committed offsets"
          : "counts verified: every state equals a plain recount of the input");
      return OK;
    }
  }

  /**
   * Attempts per batch: enough that {@code --failure-rate p} alone fails a batch for good with odds below 1e-12
   * (at least 10), and few enough that a real failure that every attempt meets (a broker gone) stops the run soon.
   */
  static int maxAttempts(double failureRate) {
    return failureRate <= 0 ? 10 : Math.max(10, (int) Math.ceil(Math.log(1e-12) / Math.log(failureRate)));
  }

  /**
   * {@code --until stop}: runs batches, polling every 200 ms while there is nothing new, until a stop is requested
   * (the run in progress then returns after the batch being committed).
   */
  private static RunSummary runUntilStopped(Pipeline pipeline, StopOnSignal stop, Options o) {
    long first = 0;
    long batches = 0;
    long failed = 0;
    long records = 0;
    while (true) {
      RunSummary s = pipeline.run(Math.max(4L, 2L * o.inFlight()));
      first = first == 0 ? s.firstTxid() : first;
      batches += s.batches();
      failed += s.failedAttempts();
      records += s.records();
      if (stop.requested()) {
        break;
      }
      if (s.batches() == 0) {
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return new RunSummary(first, pipeline.lastCommittedTxid(), batches, failed, records);
  }

  /** Runs until every partition's committed offset reached its end offset at the start (or nothing is left). */
  static RunSummary runToStartEnds(Pipeline pipeline, KafkaInput kafka, ExampleStore store, Options o) {
    long first = 0;
    long batches = 0;
    long failed = 0;
    long records = 0;
    while (!kafka.reachedStartEnds(store.checkpoint(o.command()))) {
      RunSummary s = pipeline.run(Math.max(4L, 2L * o.inFlight()));
      if (s.batches() == 0) {
        break; // nothing more to read before those offsets (e.g. an open transaction holds them back)
      }
      first = first == 0 ? s.firstTxid() : first;
      batches += s.batches();
      failed += s.failedAttempts();
      records += s.records();
    }
    return new RunSummary(first, pipeline.lastCommittedTxid(), batches, failed, records);
  }

  /** Opens the store of {@code --store}; {@code meter} wraps its table store (the identity without metrics). */
  static ExampleStore openStore(Options o, UnaryOperator<TableStore> meter) {
    switch (o.store()) {
      case "memory":
        return new TableExampleStore(meter.apply(TableStores.inMemory()), "in-memory tables", o.command());
      case "memory-maps":
        return ExampleStore.inMemory();
      case "rocksdb":
        if (o.fresh()) {
          RocksDbTableStore.destroy(o.stateDir()); // takes the directory's locks first: refuses one in use
          RunParameters.forget(o.stateDir());
        }
        RunParameters.check(o);
        return new TableExampleStore(meter.apply(RocksDbTableStore.builder(o.stateDir()).build()),
            "RocksDB at " + o.stateDir(), o.command());
      case "yt":
        return new TableExampleStore(meter.apply(YtTableStore.builder(o.proxy()).root(o.root()).build()),
            "YTsaurus " + o.proxy() + " " + o.root(), o.command());
      case "postgres":
        return new TableExampleStore(meter.apply(PostgresTableStore.builder(o.jdbcUrl()).user(o.dbUser())
            .password(System.getenv().getOrDefault("PGPASSWORD", "")).build()),
            "PostgreSQL " + o.jdbcUrl(), o.command());
      default:
        throw new UsageException("--store: '" + o.store() + "' is not one of " + String.join(", ",
            CommandLine.STORES));
    }
  }

  private static void printTop(PrintStream out, String state, Map<String, Object> values) {
    List<Map.Entry<String, Object>> entries = new ArrayList<>(values.entrySet());
    entries.sort(Comparator.comparing((Map.Entry<String, Object> e) -> -toLong(e.getValue()))
        .thenComparing(Map.Entry::getKey));
    out.printf("top of '%s' (%,d keys):%n", state, values.size());
    for (Map.Entry<String, Object> e : entries.subList(0, Math.min(10, entries.size()))) {
      out.printf("  %-14s %,d%n", e.getKey(), toLong(e.getValue()));
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
    Pipeline build(PipelineBuilder builder, ExampleStore store, RandomFaults faults);

    List<String> states();

    /** The expected states: a plain recount of the input (Kafka: of the records below the committed offsets). */
    Map<String, Map<String, Object>> recount(ExampleStore store);

    String unit();

    long units();
  }
}
