package io.epochal.examples;

import io.epochal.errors.EpochalException;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.store.rocksdb.RocksDbTableStore;
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

/**
 * The examples' command line:
 *
 * <pre>
 * word-count      [--sentences N] [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * banner-counters [--events N]    [--failure-rate p] [--spout transactional|opaque] [--batch-size B]
 * common:         [--partitions P] [--threads T] [--in-flight F] [--seed S] [--store rocksdb|memory|memory-maps|yt]
 *                 [--state-dir DIR] [--fresh true|false]   (--store rocksdb)
 *                 [--proxy HOST:PORT --root //home/...]   (--store yt)
 *                 [--jdbc-url jdbc:postgresql://HOST:PORT/DB --db-user USER]   (--store postgres; password from
 *                 the PGPASSWORD environment variable)
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

  private static final List<String> RUN_OPTIONS = List.of("failure-rate", "spout", "batch-size", "partitions",
      "threads", "in-flight", "seed", "store", "state-dir", "fresh", "proxy", "root", "jdbc-url", "db-user");
  private static final List<String> STORES = List.of("rocksdb", "memory", "memory-maps", "yt", "postgres");

  private Main() {
  }

  /** Parsed options. */
  record Options(String command, long count, double failureRate, String spout, int batchSize, int partitions,
      int threads, int inFlight, long seed, String store, Path stateDir, String proxy, String root,
      boolean fresh, String jdbcUrl, String dbUser) {
  }

  /** A bad command line: its message is the one line printed, naming the option. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

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
      return run(parse(args), out);
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
               state dump --state-dir DIR [--table PIPELINE/STATE]   (print keys, values and txids, read-only)
        exit codes: 0 counts verified (state dump: every row printed)
                    1 counts differ from a plain recount (state dump: some rows cannot be read, see ERROR lines)
                    2 bad command line: one line on stderr names the option; nothing was created or changed
                    3 the run stopped on an error (state directory damaged, busy or unusable; store or pipeline
                      error): one line on stderr says what happened and what to do""";
  }

  /**
   * Parses and checks a run's command line completely, before anything is created.
   *
   * @throws UsageException naming the option, for any bad input
   */
  static Options parse(String[] args) {
    if (args.length == 0) {
      throw new UsageException("missing command: word-count, banner-counters or state dump");
    }
    String command = args[0];
    if (!command.equals("word-count") && !command.equals("banner-counters")) {
      throw new UsageException("unknown command '" + command + "' (word-count, banner-counters, state dump)");
    }
    String countOption = command.equals("word-count") ? "sentences" : "events";
    List<String> known = new ArrayList<>(RUN_OPTIONS);
    known.add(0, countOption);
    Map<String, String> opts = options(args, 1, known, command);
    String store = choice(opts, "store", "rocksdb", STORES);
    String spout = choice(opts, "spout", "transactional", List.of("transactional", "opaque"));
    double failureRate = rate(opts, "failure-rate");
    long count = longValue(opts, countOption, 200_000, 0);
    int batchSize = intValue(opts, "batch-size", 5000, 1);
    int partitions = intValue(opts, "partitions", 4, 1);
    int threads = intValue(opts, "threads", 2, 1);
    int inFlight = intValue(opts, "in-flight", 2, 1);
    long seed = longValue(opts, "seed", 42, Long.MIN_VALUE);
    if (!store.equals("rocksdb")) {
      for (String o : List.of("state-dir", "fresh")) {
        if (opts.containsKey(o)) {
          throw new UsageException("--" + o + " applies to --store rocksdb only, not --store " + store);
        }
      }
    }
    if (!store.equals("yt")) {
      for (String o : List.of("proxy", "root")) {
        if (opts.containsKey(o)) {
          throw new UsageException("--" + o + " applies to --store yt only, not --store " + store);
        }
      }
    }
    if (!store.equals("postgres")) {
      for (String o : List.of("jdbc-url", "db-user")) {
        if (opts.containsKey(o)) {
          throw new UsageException("--" + o + " applies to --store postgres only, not --store " + store);
        }
      }
    }
    String jdbcUrl = opts.get("jdbc-url");
    if (store.equals("postgres")) {
      if (jdbcUrl == null) {
        throw new UsageException("--store postgres needs --jdbc-url jdbc:postgresql://HOST:PORT/DB");
      }
      if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
        throw new UsageException("--jdbc-url: '" + jdbcUrl + "' is not a jdbc:postgresql:// URL");
      }
    }
    boolean fresh = bool(opts, "fresh", false);
    Path stateDir = null;
    if (store.equals("rocksdb")) {
      stateDir = stateDir(opts.getOrDefault("state-dir",
          Path.of(System.getProperty("java.io.tmpdir"), "epochal-state", command).toString()), true);
    }
    String proxy = opts.get("proxy");
    String root = opts.getOrDefault("root", "//home/epochal");
    if (store.equals("yt")) {
      if (proxy == null) {
        throw new UsageException("--store yt needs --proxy HOST:PORT (and YT_TOKEN or ~/.yt/token)");
      }
      if (!proxy.matches("[^:/\\s]+:[0-9]{1,5}")) {
        throw new UsageException("--proxy: '" + proxy + "' is not HOST:PORT");
      }
      if (!root.startsWith("//")) {
        throw new UsageException("--root: '" + root + "' is not a Cypress path (//home/...)");
      }
    }
    if (store.equals("memory-maps") && spout.equals("opaque")) {
      throw new UsageException("--spout opaque cannot be exactly-once with --store memory-maps (Trident's per-key "
          + "protocol keeps a failed attempt's values): use --store memory or rocksdb, or --spout transactional");
    }
    return new Options(command, count, failureRate, spout, batchSize, partitions, threads, inFlight, seed, store,
        stateDir, proxy, root, fresh, jdbcUrl, opts.getOrDefault("db-user", "postgres"));
  }

  /**
   * Reads {@code --name value} pairs from {@code args[from..]}.
   *
   * @throws UsageException for an unknown, repeated or value-less option, or a stray argument
   */
  static Map<String, String> options(String[] args, int from, List<String> known, String command) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = from; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        throw new UsageException("expected an option (--name value), got '" + a + "'");
      }
      String name = a.substring(2);
      if (!known.contains(name)) {
        throw new UsageException("unknown option --" + name + " for " + command + " (options: --"
            + String.join(", --", known) + ")");
      }
      if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
        throw new UsageException("--" + name + " needs a value");
      }
      if (opts.put(name, args[++i]) != null) {
        throw new UsageException("--" + name + " is given twice");
      }
    }
    return opts;
  }

  private static String choice(Map<String, String> opts, String name, String dflt, List<String> allowed) {
    String v = opts.getOrDefault(name, dflt);
    if (!allowed.contains(v)) {
      throw new UsageException("--" + name + ": '" + v + "' is not one of " + String.join(", ", allowed));
    }
    return v;
  }

  private static long longValue(Map<String, String> opts, String name, long dflt, long min) {
    String v = opts.get(name);
    if (v == null) {
      return dflt;
    }
    long x;
    try {
      x = Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + ": '" + v + "' is not a whole number");
    }
    if (x < min) {
      throw new UsageException("--" + name + " must be at least " + min + ", was " + x);
    }
    return x;
  }

  private static int intValue(Map<String, String> opts, String name, int dflt, int min) {
    long x = longValue(opts, name, dflt, min);
    if (x > Integer.MAX_VALUE) {
      throw new UsageException("--" + name + " must be at most " + Integer.MAX_VALUE + ", was " + x);
    }
    return (int) x;
  }

  private static double rate(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null) {
      return 0;
    }
    double p;
    try {
      p = Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + ": '" + v + "' is not a number");
    }
    if (!(p >= 0 && p < 1)) {
      throw new UsageException("--" + name + " must be in [0, 1), was " + v);
    }
    return p;
  }

  private static boolean bool(Map<String, String> opts, String name, boolean dflt) {
    String v = opts.get(name);
    if (v == null) {
      return dflt;
    }
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new UsageException("--" + name + ": '" + v + "' is not true or false");
    };
  }

  /**
   * Checks {@code --state-dir}: an existing directory, or one that can be created (its nearest existing ancestor is
   * a writable directory). Creates nothing.
   *
   * @param mayCreate whether a missing directory is fine (a run creates it; {@code state dump} needs it)
   * @throws UsageException naming the option and why the directory cannot be used
   */
  static Path stateDir(String value, boolean mayCreate) {
    Path dir;
    try {
      dir = Path.of(value).toAbsolutePath().normalize();
    } catch (java.nio.file.InvalidPathException e) {
      throw new UsageException("--state-dir: '" + value + "' is not a path (" + e.getReason() + ")");
    }
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new UsageException("--state-dir: " + dir + " is not a directory (a file of that name exists)");
      }
      if (mayCreate && !Files.isWritable(dir)) {
        throw new UsageException("--state-dir: " + dir + " is not writable (state dump reads it read-only)");
      }
      return dir;
    }
    if (!mayCreate) {
      throw new UsageException("--state-dir: " + dir + " does not exist");
    }
    Path ancestor = dir.getParent();
    while (ancestor != null && !Files.exists(ancestor)) {
      ancestor = ancestor.getParent();
    }
    if (ancestor == null || !Files.isDirectory(ancestor)) {
      throw new UsageException("--state-dir: " + dir + " cannot be created: " + ancestor + " is not a directory");
    }
    if (!Files.isWritable(ancestor)) {
      throw new UsageException("--state-dir: " + dir + " cannot be created: " + ancestor + " is not writable");
    }
    return dir;
  }

  static int run(Options o, PrintStream out) {
    RandomFaults faults = new RandomFaults(o.failureRate(), o.seed());
    try (ExampleStore store = openStore(o)) {
      out.printf("%s: %,d %s, %s spout, batch size %,d, %d partitions, %d threads, %d in flight,"
              + " failure rate %.2f%nstore: %s%n", o.command(), o.count(),
          o.command().equals("word-count") ? "sentences" : "events", o.spout(), o.batchSize(), o.partitions(),
          o.threads(), o.inFlight(), o.failureRate(), store.describe());
      if (store instanceof TableExampleStore table && table.committedTxid() > 0) {
        out.printf("resuming: the store holds this pipeline's batches up to committed txid %,d;"
            + " continuing after it%n", table.committedTxid());
      }
      Example example = o.command().equals("word-count") ? new WordCount(o) : new BannerCounters(o);
      Progress progress = new Progress(out);
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
      } else {
        double share = o.count() == 0 ? 0 : (double) summary.records() / o.count();
        out.printf("%s/s: %,.0f%n", example.unit(), example.units() * share / seconds);
      }
      Map<String, Map<String, Object>> expected = example.recount();
      if (!expected.equals(actual)) {
        for (String state : expected.keySet()) {
          if (!Objects.equals(expected.get(state), actual.get(state))) {
            out.println("MISMATCH in state '" + state + "': " + diff(expected.get(state),
                actual.get(state)));
          }
        }
        return WRONG_STATE;
      }
      out.println("counts verified: every state equals a plain recount of the input");
      return OK;
    }
  }

  private static ExampleStore openStore(Options o) {
    switch (o.store()) {
      case "memory":
        return new TableExampleStore(TableStores.inMemory(), "in-memory tables", o.command());
      case "memory-maps":
        return ExampleStore.inMemory();
      case "rocksdb":
        if (o.fresh()) {
          RocksDbTableStore.destroy(o.stateDir()); // takes the directory's locks first: refuses one in use
          RunParameters.forget(o.stateDir());
        }
        RunParameters.check(o);
        return new TableExampleStore(RocksDbTableStore.builder(o.stateDir()).build(),
            "RocksDB at " + o.stateDir(), o.command());
      case "yt":
        return new TableExampleStore(YtTableStore.builder(o.proxy()).root(o.root()).build(),
            "YTsaurus " + o.proxy() + " " + o.root(), o.command());
      case "postgres":
        return new TableExampleStore(PostgresTableStore.builder(o.jdbcUrl()).user(o.dbUser())
            .password(System.getenv().getOrDefault("PGPASSWORD", "")).build(),
            "PostgreSQL " + o.jdbcUrl(), o.command());
      default:
        throw new UsageException("--store: '" + o.store() + "' is not one of " + String.join(", ", STORES));
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
    Pipeline build(io.epochal.pipeline.PipelineBuilder builder, ExampleStore store, RandomFaults faults);

    List<String> states();

    Map<String, Map<String, Object>> recount();

    String unit();

    long units();
  }

  /** Prints a progress line at most once a second. */
  static final class Progress implements PipelineListener {
    private final PrintStream out;
    private long lastPrint = System.nanoTime();
    private long records;
    private long failures;

    Progress(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onBatchCommitted(BatchReport report) {
      records += report.records();
      long now = System.nanoTime();
      if (now - lastPrint > 1_000_000_000L) {
        lastPrint = now;
        out.printf("  ... txid %,d committed, %,d records, %,d failed attempts replayed%n", report.txid(),
            records, failures);
      }
    }

    @Override
    public void onAttemptFailed(io.epochal.spout.BatchAttempt attempt, Throwable cause) {
      failures++;
    }
  }
}
