package io.epochal.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The parsing half of the examples' command line ({@link Main}): every option is checked completely before anything
 * is created or contacted; a bad one is a {@link Main.UsageException} naming it. Stateless.
 */
final class CommandLine {
  static final List<String> RUN_OPTIONS = List.of("failure-rate", "spout", "batch-size", "partitions",
      "threads", "in-flight", "seed", "store", "state-dir", "fresh", "proxy", "root", "jdbc-url", "db-user",
      "bootstrap", "kafka-kind", "until", "metrics-port");
  static final List<String> STORES = List.of("rocksdb", "memory", "memory-maps", "yt", "postgres");
  private static final String TOPIC = "[a-zA-Z0-9._-]{1,249}";
  private static final String HOST_PORT = "[^:/,\\s]+:[0-9]{1,5}";

  private CommandLine() {
  }

  /** The topic options of {@code command}, in the order {@link KafkaInput.Settings#topics()} keeps them. */
  static List<String> topicOptions(String command) {
    return switch (command) {
      case "word-count" -> List.of("topic");
      case "ad-join" -> List.of("shows-topic", "clicks-topic", "factors-topic");
      default -> List.of("shows-topic", "clicks-topic");
    };
  }

  /** The options of {@code ad-join} (Kafka input only; no generated input, no injected failures). */
  static final List<String> AD_JOIN_OPTIONS = List.of("bootstrap", "shows-topic", "clicks-topic", "factors-topic",
      "out-topic", "kafka-kind", "batch-size", "partitions", "threads", "in-flight", "store", "state-dir", "fresh",
      "proxy", "root", "jdbc-url", "db-user");

  /**
   * Parses and checks a run's command line completely, before anything is created.
   *
   * @throws Main.UsageException naming the option, for any bad input
   */
  static Main.Options parse(String[] args) {
    if (args.length == 0) {
      throw new Main.UsageException("missing command: word-count, banner-counters, ad-join, produce or state dump");
    }
    String command = args[0];
    if (!List.of("word-count", "banner-counters", "ad-join").contains(command)) {
      throw new Main.UsageException("unknown command '" + command
          + "' (word-count, banner-counters, ad-join, produce, state dump)");
    }
    String countOption = command.equals("word-count") ? "sentences" : "events";
    List<String> known = new ArrayList<>(RUN_OPTIONS);
    known.add(0, countOption);
    known.addAll(topicOptions(command));
    if (command.equals("ad-join")) {
      known = AD_JOIN_OPTIONS;
    }
    Map<String, String> opts = options(args, 1, known, command);
    Optional<KafkaInput.Settings> kafka = kafka(opts, command, countOption);
    String store = choice(opts, "store", "rocksdb", STORES);
    String spout = kafka.isPresent() ? choice(opts, "kafka-kind", "transactional", List.of("transactional", "opaque"))
        : choice(opts, "spout", "transactional", List.of("transactional", "opaque"));
    double failureRate = rate(opts, "failure-rate");
    long count = longValue(opts, countOption, 200_000, 0);
    int batchSize = intValue(opts, "batch-size", 5000, 1);
    int partitions = intValue(opts, "partitions", 4, 1);
    int threads = intValue(opts, "threads", 2, 1);
    int inFlight = intValue(opts, "in-flight", 2, 1);
    long seed = longValue(opts, "seed", 42, Long.MIN_VALUE);
    OptionalInt metricsPort = opts.containsKey("metrics-port")
        ? OptionalInt.of(port(opts, "metrics-port")) : OptionalInt.empty();
    if (!store.equals("rocksdb")) {
      for (String o : List.of("state-dir", "fresh")) {
        if (opts.containsKey(o)) {
          throw new Main.UsageException("--" + o + " applies to --store rocksdb only, not --store " + store);
        }
      }
    }
    if (!store.equals("yt")) {
      for (String o : List.of("proxy", "root")) {
        if (opts.containsKey(o)) {
          throw new Main.UsageException("--" + o + " applies to --store yt only, not --store " + store);
        }
      }
    }
    if (!store.equals("postgres")) {
      for (String o : List.of("jdbc-url", "db-user")) {
        if (opts.containsKey(o)) {
          throw new Main.UsageException("--" + o + " applies to --store postgres only, not --store " + store);
        }
      }
    }
    String jdbcUrl = opts.get("jdbc-url");
    if (store.equals("postgres")) {
      if (jdbcUrl == null) {
        throw new Main.UsageException("--store postgres needs --jdbc-url jdbc:postgresql://HOST:PORT/DB");
      }
      if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
        throw new Main.UsageException("--jdbc-url: '" + jdbcUrl + "' is not a jdbc:postgresql:// URL");
      }
    }
    boolean fresh = bool(opts, "fresh", false);
    Path stateDir = null;
    if (store.equals("rocksdb")) {
      stateDir = stateDir(opts.getOrDefault("state-dir", Path.of(System.getProperty("java.io.tmpdir"),
          "epochal-state", command + (kafka.isPresent() ? "-kafka" : "")).toString()), true);
    }
    String proxy = opts.get("proxy");
    String root = opts.getOrDefault("root", "//home/epochal");
    if (store.equals("yt")) {
      if (proxy == null) {
        throw new Main.UsageException("--store yt needs --proxy HOST:PORT (and YT_TOKEN or ~/.yt/token)");
      }
      if (!proxy.matches("[^:/\\s]+:[0-9]{1,5}")) {
        throw new Main.UsageException("--proxy: '" + proxy + "' is not HOST:PORT");
      }
      if (!root.startsWith("//")) {
        throw new Main.UsageException("--root: '" + root + "' is not a Cypress path (//home/...)");
      }
    }
    if (store.equals("memory-maps") && command.equals("ad-join")) {
      throw new Main.UsageException("--store memory-maps cannot hold ad-join's Flow state and timers (they need the "
          + "epoch protocol of a table store): use --store rocksdb, memory, postgres or yt");
    }
    if (store.equals("memory-maps") && spout.equals("opaque")) {
      String option = kafka.isPresent() ? "--kafka-kind" : "--spout";
      throw new Main.UsageException(option + " opaque cannot be exactly-once with --store memory-maps (Trident's "
          + "per-key protocol keeps a failed attempt's values): use --store memory or rocksdb, or " + option
          + " transactional");
    }
    return new Main.Options(command, count, failureRate, spout, batchSize, partitions, threads, inFlight, seed, store,
        stateDir, proxy, root, fresh, jdbcUrl, opts.getOrDefault("db-user", "postgres"), kafka, metricsPort);
  }

  /**
   * The Kafka input, if {@code --bootstrap} is given: its topics are required, the generated input's options
   * ({@code --spout}, the count, {@code --seed}) are refused; without it, every Kafka option is refused.
   */
  private static Optional<KafkaInput.Settings> kafka(Map<String, String> opts, String command, String countOption) {
    List<String> topicOptions = topicOptions(command);
    String bootstrap = opts.get("bootstrap");
    if (bootstrap == null && command.equals("ad-join")) {
      throw new Main.UsageException("ad-join needs --bootstrap HOST:PORT: it reads its input from Kafka topics "
          + "(produce ad-join writes a generated one)");
    }
    if (bootstrap == null) {
      for (String o : concat(topicOptions, List.of("kafka-kind", "until"))) {
        if (opts.containsKey(o)) {
          throw new Main.UsageException("--" + o + " needs --bootstrap HOST:PORT (it applies to the Kafka input)");
        }
      }
      return Optional.empty();
    }
    bootstrapServers(bootstrap);
    for (String o : List.of("spout", countOption, "seed")) {
      if (opts.containsKey(o)) {
        throw new Main.UsageException("--" + o + " applies to the generated input, not to --bootstrap (Kafka)"
            + (o.equals("spout") ? ": use --kafka-kind transactional|opaque" : ""));
      }
    }
    List<String> topics = new ArrayList<>();
    for (String o : topicOptions) {
      String t = opts.get(o);
      if (t == null) {
        throw new Main.UsageException(command + " with --bootstrap needs --" + String.join(" NAME and --",
            topicOptions) + " NAME (missing --" + o + ")");
      }
      topics.add(topic(o, t));
    }
    if (topics.size() == 2 && topics.get(0).equals(topics.get(1))) {
      throw new Main.UsageException("--clicks-topic: '" + topics.get(1) + "' is also the --shows-topic; shows and "
          + "clicks need topics of their own");
    }
    Optional<String> outTopic = Optional.empty();
    if (command.equals("ad-join")) {
      if (!opts.containsKey("out-topic")) {
        throw new Main.UsageException("ad-join needs --out-topic NAME (the joined shows are written there)");
      }
      outTopic = Optional.of(topic("out-topic", opts.get("out-topic")));
      List<String> all = concat(topics, List.of(outTopic.get()));
      List<String> names = concat(topicOptions, List.of("out-topic"));
      for (int i = 1; i < all.size(); i++) {
        int first = all.indexOf(all.get(i));
        if (first < i) {
          throw new Main.UsageException("--" + names.get(i) + ": '" + all.get(i) + "' is also the --"
              + names.get(first) + "; every topic of ad-join must be its own");
        }
      }
    }
    String until = choice(opts, "until", "end", List.of("end", "idle", "stop"));
    return Optional.of(new KafkaInput.Settings(bootstrap, topics, topicOptions, until, outTopic));
  }

  /** @throws Main.UsageException unless {@code value} is {@code HOST:PORT[,HOST:PORT...]} */
  static String bootstrapServers(String value) {
    if (!value.matches(HOST_PORT + "(," + HOST_PORT + ")*")) {
      throw new Main.UsageException("--bootstrap: '" + value + "' is not HOST:PORT (or HOST:PORT,HOST:PORT,...)");
    }
    return value;
  }

  /** @throws Main.UsageException unless {@code value} is a valid Kafka topic name */
  static String topic(String option, String value) {
    if (!value.matches(TOPIC) || value.equals(".") || value.equals("..")) {
      throw new Main.UsageException("--" + option + ": '" + value + "' is not a Kafka topic name (letters, digits, "
          + "'.', '_', '-'; at most 249)");
    }
    return value;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
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
        throw new Main.UsageException("expected an option (--name value), got '" + a + "'");
      }
      String name = a.substring(2);
      if (!known.contains(name)) {
        throw new Main.UsageException("unknown option --" + name + " for " + command + " (options: --"
            + String.join(", --", known) + ")");
      }
      if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
        throw new Main.UsageException("--" + name + " needs a value");
      }
      if (opts.put(name, args[++i]) != null) {
        throw new Main.UsageException("--" + name + " is given twice");
      }
    }
    return opts;
  }

  static String choice(Map<String, String> opts, String name, String dflt, List<String> allowed) {
    String v = opts.getOrDefault(name, dflt);
    if (!allowed.contains(v)) {
      throw new Main.UsageException("--" + name + ": '" + v + "' is not one of " + String.join(", ", allowed));
    }
    return v;
  }

  static long longValue(Map<String, String> opts, String name, long dflt, long min) {
    String v = opts.get(name);
    if (v == null) {
      return dflt;
    }
    long x;
    try {
      x = Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new Main.UsageException("--" + name + ": '" + v + "' is not a whole number");
    }
    if (x < min) {
      throw new Main.UsageException("--" + name + " must be at least " + min + ", was " + x);
    }
    return x;
  }

  static int intValue(Map<String, String> opts, String name, int dflt, int min) {
    long x = longValue(opts, name, dflt, min);
    if (x > Integer.MAX_VALUE) {
      throw new Main.UsageException("--" + name + " must be at most " + Integer.MAX_VALUE + ", was " + x);
    }
    return (int) x;
  }

  /** @throws Main.UsageException unless option {@code name} is a TCP port, 0 (any free port) to 65535 */
  static int port(Map<String, String> opts, String name) {
    long port = longValue(opts, name, 0, 0);
    if (port > 65_535) {
      throw new Main.UsageException("--" + name + " must be a TCP port (0 for any free one, at most 65535), was "
          + port);
    }
    return (int) port;
  }

  static double rate(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null) {
      return 0;
    }
    double p;
    try {
      p = Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new Main.UsageException("--" + name + ": '" + v + "' is not a number");
    }
    if (!(p >= 0 && p < 1)) {
      throw new Main.UsageException("--" + name + " must be in [0, 1), was " + v);
    }
    return p;
  }

  static boolean bool(Map<String, String> opts, String name, boolean dflt) {
    String v = opts.get(name);
    if (v == null) {
      return dflt;
    }
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new Main.UsageException("--" + name + ": '" + v + "' is not true or false");
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
      throw new Main.UsageException("--state-dir: '" + value + "' is not a path (" + e.getReason() + ")");
    }
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new Main.UsageException("--state-dir: " + dir + " is not a directory (a file of that name exists)");
      }
      if (mayCreate && !Files.isWritable(dir)) {
        throw new Main.UsageException("--state-dir: " + dir + " is not writable (state dump reads it read-only)");
      }
      return dir;
    }
    if (!mayCreate) {
      throw new Main.UsageException("--state-dir: " + dir + " does not exist");
    }
    Path ancestor = dir.getParent();
    while (ancestor != null && !Files.exists(ancestor)) {
      ancestor = ancestor.getParent();
    }
    if (ancestor == null || !Files.isDirectory(ancestor)) {
      throw new Main.UsageException("--state-dir: " + dir + " cannot be created: " + ancestor + " is not a directory");
    }
    if (!Files.isWritable(ancestor)) {
      throw new Main.UsageException("--state-dir: " + dir + " cannot be created: " + ancestor + " is not writable");
    }
    return dir;
  }

}
