package io.epochal.testkit.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.epochal.api.Evolving;
import io.epochal.codec.Codecs;
import io.epochal.errors.LeaseLostException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.Range;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A word count for crash tests of a {@link TableStore} with real processes, shared by every store module: the worker
 * side ({@link #runWorker}, called from a store's own {@code main} in a {@link ChildJvm}), the checker
 * ({@link Check}: the store's tables against an exact recount), and the SIGKILL loop ({@link #sigkillLoop}).
 *
 * <p>The worker: a transactional {@link GeneratedSpout} of sentences ({@link #sentences}, a pure function of seed
 * and index, so replays and the recount agree), split into words, counted into a {@code TransactionalMap} table and
 * an {@code OpaqueMap} table through a {@link TableCheckpointStore} with the given protocol: {@code EPOCH} (both
 * states' rows, the spout metadata and the txid in one store transaction) or {@code PER_KEY} (Trident's: each state
 * write its own transaction, txids in the cells, checkpoint last). It prints {@code READY <txid>} once the pipeline
 * is built (lease taken, checkpoint recovered), {@code C <txid>} after every commit, {@code DONE <txid>} when the input
 * is exhausted, each followed by the milliseconds since the JVM started, and {@code FENCED <txid> <message>} if
 * another worker took its lease over.
 *
 * <p>Stateless; {@link Check} is not thread-safe.
 *
 * @since 0.2.0
 */
@Evolving
public final class CrashWordCount {
  /** The pipeline's name. */
  public static final String PIPELINE = "wordcount";
  /** The transactional state's name. */
  public static final String TRANSACTIONAL_STATE = "counts_tx";
  /** The opaque state's name. */
  public static final String OPAQUE_STATE = "counts_opaque";
  /** The table of the transactional state ({@code <pipeline>/<state>}). */
  public static final String TRANSACTIONAL_TABLE = PIPELINE + "/" + TRANSACTIONAL_STATE;
  /** The table of the opaque state. */
  public static final String OPAQUE_TABLE = PIPELINE + "/" + OPAQUE_STATE;
  /** The worker's exit code when it was fenced. */
  public static final int FENCED_EXIT = 3;
  private static final int VOCABULARY = 3000;
  private static final long UNBOUNDED = 1L << 40;
  private static final long TAIL = 3_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private CrashWordCount() {
  }

  /**
   * Sentence {@code i}: 3 to 12 words from a skewed vocabulary of 3000 words, a pure function of {@code (seed, i)}.
   *
   * @param seed the seed of the input; the worker and the {@link Check} of one run use the same
   * @return the sentence of each index, words {@code w<id>} separated by single spaces
   */
  public static LongFunction<String> sentences(long seed) {
    return i -> {
      SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
      int n = r.nextInt(3, 13);
      StringBuilder sb = new StringBuilder();
      for (int w = 0; w < n; w++) {
        double u = r.nextDouble();
        int word = (int) (VOCABULARY * u * u * u); // skewed: low ids are frequent
        sb.append(w == 0 ? "" : " ").append("w").append(word);
      }
      return sb.toString();
    };
  }

  /**
   * Splits a sentence into its words.
   *
   * @param sentence a sentence of {@link #sentences}
   * @return the words of the sentence, in order
   */
  public static List<String> words(String sentence) {
    return Arrays.asList(sentence.split(" "));
  }

  /**
   * Runs the worker over {@code store} in this process until the input is exhausted or the lease is lost.
   *
   * @param store the store under test, opened by the caller (who closes it)
   * @param seed the seed of the input ({@link #sentences})
   * @param count the number of sentences of the input
   * @param batchSize the sentences per batch
   * @param protocol the commit protocol of the worker's {@link TableCheckpointStore}
   * @param pauseMillis a pause after each commit (0 for none), to give a test time to act between commits
   * @return 0 when the input was exhausted, {@link #FENCED_EXIT} when another worker took the lease over (the caller
   *     closes the store, prints {@code CLOSED} if it needs to, and exits with it)
   */
  public static int runWorker(TableStore store, long seed, long count, int batchSize, CommitProtocol protocol,
      long pauseMillis) {
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(store)
        .owner("wordcount-pid-" + ProcessHandle.current().pid()).protocol(protocol).build();
    var transactional = TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs()));
    var opaque = OpaqueTableLayout.factory(TableStates.builder(KeyCodec.strings("word"), Codecs.longs()));
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE)
        .partitions(4)
        .threads(2)
        .maxBatchesInFlight(2)
        .checkpointStore(checkpoints)
        .listener(new PipelineListener() {
          @Override
          public void onBatchCommitted(BatchReport report) {
            System.out.println("C " + report.txid() + " " + uptime());
            if (pauseMillis > 0) {
              try {
                Thread.sleep(pauseMillis);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        });
    GroupedStream<String, String> words = builder
        .source(GeneratedSpout.of("sentences", count, batchSize, sentences(seed)))
        .flatMap(CrashWordCount::words)
        .groupBy(w -> w);
    words.persistentAggregate(TRANSACTIONAL_STATE, transactional, Aggregators.count());
    words.persistentAggregate(OPAQUE_STATE, opaque, Aggregators.count());
    try (Pipeline pipeline = builder.build()) {
      System.out.println("READY " + pipeline.lastCommittedTxid() + " " + uptime());
      try {
        pipeline.runUntilIdle();
      } catch (LeaseLostException e) {
        System.out.println("FENCED " + pipeline.lastCommittedTxid() + " " + e.getMessage());
        return FENCED_EXIT;
      }
      System.out.println("DONE " + pipeline.lastCommittedTxid() + " " + uptime());
      return 0;
    }
  }

  private static long uptime() {
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
  }

  /** Starts a worker child JVM over the store under test. */
  @FunctionalInterface
  public interface Launcher {
    /**
     * Starts a worker whose input holds {@code count} sentences.
     *
     * @param count the number of sentences the worker's input holds
     * @return the started child
     * @throws IOException if the child JVM cannot be started
     */
    ChildJvm start(long count) throws IOException;
  }

  /**
   * The SIGKILL loop: starts a worker with an unbounded input and kills it (SIGKILL) at a random moment, {@code kills}
   * times — a fifth at a random moment after the process start (JVM start-up, store open, lease takeover, checkpoint
   * load), three tenths right after the pipeline reported it recovered (replay of the recorded pending batch), the
   * rest in the steady state after a first commit — checking every count against the recount after each kill; then a
   * last run finishes the input (the committed and pending position plus a tail) and the counts must be exact.
   *
   * @param name the test's name for its summary line
   * @param launcher starts a worker child over the store under test
   * @param check checks the store's tables after each kill and at the end
   * @param kills how many times to SIGKILL a worker
   * @param seed the seed of the kill schedule (and of the check's input)
   * @return a one-line summary: kills, batches, sentences, distinct words, seconds, seed and the schedule
   * @throws Exception if a worker cannot be started or waited for
   * @throws AssertionError if a worker fails to start or commit, the committed txid goes back, or a count is wrong
   */
  public static String sigkillLoop(String name, Launcher launcher, Check check, int kills, long seed)
      throws Exception {
    Random random = new Random(seed);
    long started = System.nanoTime();
    int beforeReady = 0;
    int killed = 0;
    long lastTxid = 0;
    StringBuilder schedule = new StringBuilder();
    while (killed < kills) {
      String phase;
      long delay;
      try (ChildJvm child = launcher.start(UNBOUNDED)) {
        int pick = random.nextInt(10);
        if (pick < 2) {
          phase = "start";
          delay = random.nextInt(1500);
        } else {
          assertNotNull(child.awaitLine(l -> l.startsWith("READY "), TIMEOUT),
              () -> "worker did not start (seed " + seed + "): " + child.stderr());
          if (pick < 5) {
            phase = "recovered";
            delay = random.nextInt(250);
          } else {
            phase = "running";
            assertNotNull(child.awaitLine(l -> l.startsWith("C "), TIMEOUT),
                () -> "worker committed nothing (seed " + seed + "): " + child.stderr());
            delay = random.nextInt(700);
          }
        }
        Thread.sleep(delay);
        if (!child.isAlive()) {
          fail("worker exited before it was killed (seed " + seed + "): " + child.stderr());
        }
        boolean wasReady = !phase.equals("start") || child.pollLine(l -> l.startsWith("READY ")) != null;
        child.kill();
        killed++;
        beforeReady += wasReady ? 0 : 1;
      }
      Progress p = check.verify();
      assertTrue(p.txid() >= lastTxid, "committed txid went back from " + lastTxid + " to " + p.txid());
      lastTxid = p.txid();
      schedule.append(killed % 10 == 1 ? "\n   " : " ").append(phase).append('+').append(delay).append("ms:")
          .append(p.txid());
    }
    Progress atEnd = check.verify();
    long finalCount = Math.max(atEnd.end(), atEnd.pendingEnd()) + TAIL;
    try (ChildJvm last = launcher.start(finalCount)) {
      assertNotNull(last.awaitLine(l -> l.startsWith("DONE "), TIMEOUT),
          () -> "the last run did not finish (seed " + seed + "): " + last.stderr());
      assertEquals(0, last.waitFor(TIMEOUT), last::stderr);
    }
    Progress done = check.verify();
    assertEquals(finalCount, done.end(), "the last run must consume the whole input");
    assertTrue(done.txid() > 0, "something must have been committed");
    long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
    return String.format("%s %s: %d SIGKILLs (%d before the pipeline was running), %d batches committed, "
        + "%d sentences, %d distinct words, %d s, seed %d; kills as phase+delay:committed txid after it:%s", name,
        check.protocol, killed, beforeReady, done.txid(), finalCount, check.distinctWords(), seconds, seed, schedule);
  }

  /** Committed position of the pipeline: txid, end of its spout range, end of the recorded pending ranges. */
  public record Progress(long txid, long end, long pendingEnd) {
  }

  /**
   * Checks the tables of a worker run against an exact recount of its input: opens the store, reads the checkpoint
   * and both count tables, and compares them with the recount up to the committed spout position. Under the epoch
   * protocol exactly; under the per-key protocol each word's count is that recount or, if the worker died between the
   * state writes and the checkpoint of the next batch, the recount including that batch (which its replay skips per
   * key). The recount advances incrementally, so checking after every kill stays linear in the input.
   */
  public static final class Check {
    private final Supplier<? extends TableStore> opener;
    private final long seed;
    private final CommitProtocol protocol;
    private final Recount recount;

    /**
     * Makes a checker of the runs of one input.
     *
     * @param opener opens the store under test (waiting for a killed worker to let go, if the store needs that); the
     *     check closes it after each {@link #verify}
     * @param seed the seed of the workers' input ({@link #sentences})
     * @param protocol the workers' commit protocol, which decides how exact the counts must be
     */
    public Check(Supplier<? extends TableStore> opener, long seed, CommitProtocol protocol) {
      this.opener = Objects.requireNonNull(opener, "opener");
      this.seed = seed;
      this.protocol = Objects.requireNonNull(protocol, "protocol");
      this.recount = new Recount(sentences(seed));
    }

    /** @return the number of distinct words counted so far */
    public int distinctWords() {
      return recount.counts.size();
    }

    /**
     * Opens the store, reads the checkpoint and both count tables, and checks them against the recount (see the class
     * documentation for the per-key allowance).
     *
     * @return the committed position
     */
    public Progress verify() {
      try (TableStore store = opener.get()) {
        TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("crash-test-checker")
            .protocol(protocol).build();
        Checkpoint cp = checkpoints.load(PIPELINE);
        long end = cp.hasCommitted() ? Range.codec().decode(cp.committedMetadata()).end() : 0;
        long pendingEnd = end;
        for (byte[] pending : cp.pendingMetadata().values()) {
          pendingEnd = Math.max(pendingEnd, Range.codec().decode(pending).end());
        }
        Map<String, Long> expected = recount.upTo(end);
        Map<String, Long> nextBatch = Map.of();
        byte[] next = cp.pendingMetadata().get(cp.committedTxid() + 1);
        if (protocol == CommitProtocol.PER_KEY && next != null) {
          Range r = Range.codec().decode(next);
          assertEquals(end, r.start(), "the next batch starts where the committed one ended");
          nextBatch = recount.countsOf(r.start(), r.end());
        }
        TransactionalTableLayout<Long> tx = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
        OpaqueTableLayout<Long> opaque = new OpaqueTableLayout<>(Codecs.longs(), v -> false);
        String where = " after committed txid " + cp.committedTxid() + " (records [0, " + end + "), " + protocol
            + ", seed " + seed + ")";
        assertCounts(expected, nextBatch, read(store, TRANSACTIONAL_TABLE, r -> tx.read(r).value()),
            "TransactionalMap counts" + where);
        assertCounts(expected, nextBatch, read(store, OPAQUE_TABLE, r -> opaque.read(r).curr()),
            "OpaqueMap counts" + where);
        return new Progress(cp.committedTxid(), end, pendingEnd);
      }
    }

    /**
     * Fails naming the first words whose stored count is neither the recount nor (per-key protocol) the recount plus
     * the word's count in the next, partially applied batch.
     */
    private static void assertCounts(Map<String, Long> expected, Map<String, Long> nextBatch,
        Map<String, Long> actual, String what) {
      TreeMap<String, String> diff = new TreeMap<>();
      Set<String> words = new TreeSet<>(expected.keySet());
      words.addAll(actual.keySet());
      words.addAll(nextBatch.keySet());
      for (String w : words) {
        Long stored = actual.get(w);
        Long exact = expected.get(w);
        Long ahead = nextBatch.containsKey(w) ? (exact == null ? 0 : exact) + nextBatch.get(w) : exact;
        if (!Objects.equals(stored, exact) && !Objects.equals(stored, ahead)) {
          diff.put(w, "recount " + exact + (Objects.equals(ahead, exact) ? "" : " (or " + ahead + ")") + ", stored "
              + stored);
        }
      }
      if (!diff.isEmpty()) {
        fail(what + ": " + diff.size() + " of " + words.size() + " words differ, e.g. "
            + diff.entrySet().stream().limit(8).map(Object::toString).toList());
      }
    }

    private static Map<String, Long> read(TableStore store, String path, Function<Row, Long> value) {
      Optional<Table> table = store.findTable(path);
      Map<String, Long> out = new HashMap<>();
      if (table.isEmpty()) {
        return out;
      }
      try (StoreTransaction tx = store.begin()) {
        for (Row row : tx.scan(table.get())) {
          out.put(row.getString("word"), value.apply(row));
        }
      }
      return out;
    }
  }

  /** An exact recount of the sentence sequence, advanced incrementally. */
  private static final class Recount {
    private final LongFunction<String> sentences;
    private final Map<String, Long> counts = new HashMap<>();
    private long end;

    Recount(LongFunction<String> sentences) {
      this.sentences = sentences;
    }

    Map<String, Long> upTo(long newEnd) {
      assertTrue(newEnd >= end, "the committed spout position went back from " + end + " to " + newEnd);
      for (; end < newEnd; end++) {
        add(counts, end);
      }
      return counts;
    }

    Map<String, Long> countsOf(long from, long to) {
      Map<String, Long> out = new HashMap<>();
      for (long i = from; i < to; i++) {
        add(out, i);
      }
      return out;
    }

    private void add(Map<String, Long> into, long record) {
      for (String w : words(sentences.apply(record))) {
        into.merge(w, 1L, Long::sum);
      }
    }
  }
}
