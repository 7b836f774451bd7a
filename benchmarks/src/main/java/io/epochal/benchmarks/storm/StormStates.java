package io.epochal.benchmarks.storm;

import io.epochal.benchmarks.Corpus;
import io.epochal.benchmarks.Meter;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.trident.EpochalTrident;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.state.map.TransactionalMap;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * Epochal state on Storm against Storm's own map states, in one {@link LocalCluster} and one JVM, over the same
 * topology and input: a transactional Trident spout over byte ranges of the corpus file (1 task) → shuffle →
 * {@code each(split)} (P tasks) → {@code groupBy(word)} → {@code persistentAggregate(Count)} (P tasks), batches of
 * {@code --batch} lines, {@code --pending} batches in flight, batch emit interval 1 ms, 1 worker. Only the state
 * factory differs: Storm's {@link MemoryMapState} (an {@code OpaqueMap} over a HashMap), Storm's
 * {@link TransactionalMap} over an in-memory backing map, and Epochal's {@code stormState(..).opaque()} and
 * {@code .transactional()} over the in-memory table store (the per-partition epoch protocol with undo records).
 * Variants are interleaved for {@code --rounds} rounds; every run's counts are checked against a recount of the file.
 * Prints words/s per run and the median ratio of each variant to {@code MemoryMapState}.
 *
 * <p>{@code mvn -B -q install -DskipTests && mvn -B -q -pl benchmarks exec:exec@storm-states
 * -Dstorm-states.args="--sentences 200000 --rounds 3"}
 */
public final class StormStates {
  /** The in-memory table stores of the Epochal runs, by store name (the LocalCluster runs in this JVM). */
  static final Map<String, TableStore> STORES = new ConcurrentHashMap<>();

  private StormStates() {
  }

  private record Run(String variant, int round, double wordsPerSecond, double seconds, long batches) {
  }

  /**
   * Runs the comparison, first re-launching itself in a child JVM with Storm's classpath and exiting with its status.
   *
   * @param args {@code --option value} pairs: {@code --sentences}, {@code --rounds}, {@code --batch},
   *     {@code --partitions}, {@code --pending}, {@code --dir} (the corpus and work directory)
   * @throws Exception if the child, the cluster or a run fails, a run's counts differ from the recount, or an option
   *     is unknown
   */
  public static void main(String[] args) throws Exception {
    if (System.getProperty("storm-states.child") == null) {
      // Storm's LocalCluster needs log4j-core, not the harness' slf4j-simple: run in a child with Storm's classpath.
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> command = new ArrayList<>(List.of(java, "-Xmx2g", "-Dstorm-states.child=true", "-cp",
          io.epochal.benchmarks.Classpaths.forPeer(io.epochal.benchmarks.Variant.Peer.STORM,
              System.getProperty("java.class.path")), StormStates.class.getName()));
      command.addAll(List.of(args));
      Process child = new ProcessBuilder(command).inheritIO().start();
      System.exit(child.waitFor());
    }
    Map<String, String> opts = new HashMap<>(Map.of("--sentences", "300000", "--rounds", "3", "--batch", "10000",
        "--partitions", "2", "--pending", "2", "--dir", "target/storm-states"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!opts.containsKey(args[i])) {
        throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
      }
      opts.put(args[i], args[i + 1]);
    }
    long sentences = Long.parseLong(opts.get("--sentences"));
    int rounds = Integer.parseInt(opts.get("--rounds"));
    int batch = Integer.parseInt(opts.get("--batch"));
    int partitions = Integer.parseInt(opts.get("--partitions"));
    int pending = Integer.parseInt(opts.get("--pending"));
    Path corpus = Corpus.ensure(Path.of(opts.get("--dir")), sentences);
    Map<String, Long> expected = Corpus.count(corpus);
    long words = expected.values().stream().mapToLong(Long::longValue).sum();
    List<String> variants = List.of("storm-MemoryMapState", "storm-TransactionalMap", "epochal-opaque",
        "epochal-transactional");
    List<Run> runs = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      for (String variant : variants) {
        // One LocalCluster per run: a topology submitted while a killed one still holds the slot can stall.
        try (LocalCluster cluster = new LocalCluster()) {
          Run r = run(cluster, variant, round, corpus, expected, words, batch, partitions, pending);
          runs.add(r);
          System.out.printf(Locale.ROOT, "round %d %-24s %,12.0f words/s  %6.2f s  %d batches  counts verified%n",
              round, variant, r.wordsPerSecond(), r.seconds(), r.batches());
        }
      }
    }
    Map<String, Double> median = new LinkedHashMap<>();
    for (String v : variants) {
      List<Double> rates = new ArrayList<>();
      runs.stream().filter(r -> r.variant().equals(v)).forEach(r -> rates.add(r.wordsPerSecond()));
      rates.sort(Double::compare);
      int n = rates.size();
      median.put(v, n % 2 == 1 ? rates.get(n / 2) : (rates.get(n / 2 - 1) + rates.get(n / 2)) / 2);
    }
    double base = median.get("storm-MemoryMapState");
    System.out.printf(Locale.ROOT, "%n%d sentences (%,d words, %d distinct), batches of %d lines, %d partitions, "
        + "%d in flight, %d rounds (median words/s):%n", sentences, words, expected.size(), batch, partitions,
        pending, rounds);
    System.out.println("| variant | words/s | × MemoryMapState | counts |");
    System.out.println("| --- | ---: | ---: | --- |");
    median.forEach((v, rate) -> System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f× | verified (%d runs) |%n", v,
        rate, rate / base, rounds));
    System.exit(0); // Storm leaves non-daemon threads behind
  }

  private static Run run(LocalCluster cluster, String variant, int round, Path corpus, Map<String, Long> expected,
      long words, int batch, int partitions, int pending) throws Exception {
    Meter meter = new Meter();
    TridentRun.meter = meter;
    TridentRun.FINAL_TXID.set(-1);
    TridentRun.COMMITTED.clear();
    TridentRun.numPartitions = -1;
    TridentRun.STATES.clear();
    TridentRun.TX_CELLS.clear();
    String name = variant.toLowerCase(Locale.ROOT) + "-" + round;
    StateFactory state = switch (variant) {
      case "storm-MemoryMapState" -> new MemoryMapState.Factory();
      case "storm-TransactionalMap" -> new StaticTransactional();
      case "epochal-opaque" -> epochal(name).opaque();
      case "epochal-transactional" -> epochal(name).transactional();
      default -> throw new IllegalArgumentException(variant);
    };
    TridentTopology topology = new TridentTopology();
    topology.newStream("corpus", new TridentRun.FileTransactionalTridentSpout(corpus.toString(), batch))
        .parallelismHint(1).shuffle()
        .each(new Fields("line"), new TridentRun.Split(), new Fields("word")).parallelismHint(partitions)
        .groupBy(new Fields("word"))
        .persistentAggregate(new Tracked(state), new Count(), new Fields("count")).parallelismHint(partitions);
    Config conf = new Config();
    conf.setNumWorkers(1);
    conf.setMaxSpoutPending(pending);
    conf.setMessageTimeoutSecs(120);
    conf.put(Config.TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS, 1);
    conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, 0);
    cluster.submitTopology(name, conf, topology.build());
    long deadline = System.nanoTime() + 1_800_000_000_000L;
    while (!done()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(variant + " did not finish within 30 minutes");
      }
      Thread.sleep(2);
    }
    meter.stop();
    KillOptions kill = new KillOptions();
    kill.set_wait_secs(0);
    cluster.killTopologyWithOpts(name, kill);
    Map<String, Long> counts = counts(expected);
    if (!counts.equals(expected)) {
      long got = counts.values().stream().mapToLong(Long::longValue).sum();
      throw new IllegalStateException(variant + " round " + round + ": counts differ from the recount (" + got
          + " words counted, " + words + " in the file)");
    }
    double seconds = meter.wallNanos() / 1e9;
    return new Run(variant, round, words / seconds, seconds, TridentRun.FINAL_TXID.get());
  }

  private static io.epochal.trident.StormStateBuilder epochal(String name) {
    STORES.put(name, TableStores.inMemory());
    return EpochalTrident.stormState(name, () -> STORES.get(name), "word_counts");
  }

  private static boolean done() {
    long last = TridentRun.FINAL_TXID.get();
    int n = TridentRun.numPartitions;
    if (last < 0 || n < 0 || TridentRun.COMMITTED.size() < n) {
      return false;
    }
    for (long c : TridentRun.COMMITTED.values()) {
      if (c < last) {
        return false;
      }
    }
    return true;
  }

  /** Every partition's committed values of every word of the file (partitions hold disjoint keys or all of them). */
  private static Map<String, Long> counts(Map<String, Long> expected) {
    List<String> all = new ArrayList<>(expected.keySet());
    List<List<Object>> keys = new ArrayList<>(all.size());
    for (String w : all) {
      keys.add(new Values(w));
    }
    Map<String, Long> out = new HashMap<>();
    for (MapState<Object> state : TridentRun.STATES) {
      List<Object> values = state.multiGet(keys);
      for (int i = 0; i < all.size(); i++) {
        if (values.get(i) != null) {
          out.put(all.get(i), ((Number) values.get(i)).longValue());
        }
      }
    }
    return out;
  }

  /** Storm's {@link TransactionalMap} over the in-memory backing map of {@link TridentRun}. */
  static final class StaticTransactional implements StateFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partitionIndex, int partitions) {
      return TransactionalMap.build(new TridentRun.StaticBackingMap());
    }
  }

  /** Any map state factory, its partitions observed (committed txids, the states for the final read). */
  static final class Tracked implements StateFactory {
    private static final long serialVersionUID = 1L;
    private final StateFactory delegate;

    Tracked(StateFactory delegate) {
      this.delegate = delegate;
    }

    @Override
    @SuppressWarnings("unchecked")
    public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partitionIndex, int partitions) {
      TridentRun.numPartitions = partitions;
      MapState<Object> inner = (MapState<Object>) delegate.makeState(conf, metrics, partitionIndex, partitions);
      TridentRun.STATES.add(inner);
      return new TridentRun.Tracking(inner, partitionIndex);
    }
  }
}
