package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.errors.EpochalException;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.spout.ICommitterTridentSpout;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.testing.FeederBatchSpout;
import org.apache.storm.trident.testing.FeederCommitterBatchSpout;
import org.apache.storm.trident.testing.IFeeder;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Storm's own test spouts {@code FeederBatchSpout} and {@code FeederCommitterBatchSpout} through
 * {@code EpochalTrident.spout}: their coordinators read the emitter's task count through the coordinator component id
 * ({@code $spoutcoord-<id>}), their metadata is a map with {@code Integer} keys, {@code feed} blocks until the batch
 * committed, and between fed batches there is nothing (many empty batches). Counts must be exact, under injected
 * failures, and a committer's {@code commit(attempt)} must follow the batch's commit, in txid order.
 */
class FeederSpoutsTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final AtomicInteger RUN = new AtomicInteger();

  /** A FeederCommitterBatchSpout recording, at each commit(attempt), the txids the state already holds. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class RecordingCommitter extends FeederCommitterBatchSpout {
    private static final long serialVersionUID = 1L;
    final transient ConcurrentLinkedQueue<Long> commits = new ConcurrentLinkedQueue<>();
    final transient ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    transient InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store;

    RecordingCommitter(List<String> fields) {
      super(fields);
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public Emitter getEmitter(String txStateId, Map<String, Object> conf, TopologyContext context) {
      ICommitterTridentSpout.Emitter inner = super.getEmitter(txStateId, conf, context);
      return new Emitter() {
        @Override
        public void commit(TransactionAttempt attempt) {
          long txid = attempt.getTransactionId();
          long stored = store.snapshot().values().stream().mapToLong(TransactionalValue::txid).max().orElse(0);
          if (stored != txid) {
            violations.add("commit(" + attempt + ") while the state holds txids up to " + stored);
          }
          commits.add(txid);
          inner.commit(attempt);
        }

        @Override
        public void emitBatch(TransactionAttempt tx, Object coordinatorMeta, TridentCollector collector) {
          inner.emitBatch(tx, coordinatorMeta, collector);
        }

        @Override
        public void success(TransactionAttempt tx) {
          inner.success(tx);
        }

        @Override
        public void close() {
          inner.close();
        }
      };
    }
  }

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void shouldRunFeederBatchSpoutWithExactCounts() throws Exception {
    FeederBatchSpout spout = new FeederBatchSpout(List.of("sentence"));
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    List<String> fed = feedAndRun(spout, spout, store, 12);
    assertEquals(Sentences.counts(fed), counts(store));
  }

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void shouldRunFeederCommitterBatchSpoutCommittingAfterEachBatch() throws Exception {
    RecordingCommitter spout = new RecordingCommitter(List.of("sentence"));
    spout.setWaitToEmit(false); // the coordinator is always ready: every probe between feeds is an empty batch
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    spout.store = store;
    int batches = 12;
    List<String> fed = feedAndRun(spout, spout, store, batches);
    assertEquals(Sentences.counts(fed), counts(store));
    List<Long> expected = new ArrayList<>();
    for (long t = 1; t <= batches; t++) {
      expected.add(t);
    }
    assertEquals(expected, new ArrayList<>(spout.commits), "one commit(attempt) per batch, in txid order");
    assertTrue(spout.violations.isEmpty(), spout.violations.toString());
  }

  /**
   * Feeds {@code batches} batches one after the other, each after a few runs with nothing fed, and runs the pipeline
   * until the feed returns (it returns when the coordinator's {@code success} released it).
   *
   * @return the sentences fed
   */
  private static List<String> feedAndRun(ITridentSpout<?> spout, IFeeder feeder,
      InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store, int batches) throws Exception {
    String name = "feeder-" + RUN.incrementAndGet();
    PipelineBuilder b = Pipeline.newBuilder(name).partitions(3).threads(2).maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(50));
    String split = name + "-split";
    b.source(EpochalTrident.spout("feeder", spout, SpoutKind.TRANSACTIONAL))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(split, 17), WORD))
        .groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", TransactionalMap.factory(store), EpochalTrident.combiner(new Count()));
    List<String> fed = new ArrayList<>();
    ExecutorService feeding = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name + "-feed");
      t.setDaemon(true); // feed() blocks until its batch succeeds; never keep the JVM alive for it
      return t;
    });
    try (Pipeline p = b.build()) {
      for (int i = 0; i < batches; i++) {
        for (int idle = 0; idle < 5; idle++) {
          RunSummary nothing = p.runUntilIdle();
          assertEquals(0, nothing.batches(), "nothing was fed: no batch");
        }
        List<String> sentences = Sentences.make(5 + i, 100 + i); // fewer than 17: some attempt passes
        fed.addAll(sentences);
        List<List<Object>> tuples = new ArrayList<>();
        sentences.forEach(s -> tuples.add(new Values(s)));
        Future<?> feed = feeding.submit(() -> feeder.feed(tuples));
        long committed = 0;
        while (!feed.isDone()) {
          committed += p.runUntilIdle().batches();
        }
        feed.get();
        committed += p.runUntilIdle().batches();
        assertEquals(1, committed, "one fed batch is one committed batch");
        assertEquals(i + 1, p.lastCommittedTxid());
      }
    } finally {
      feeding.shutdownNow();
    }
    assertTrue(Flaky.failures(split) > 0, "failures were injected");
    return fed;
  }

  @Test
  void shouldKeepGenericSpoutMetadataExactlyAsTheCoordinatorMadeIt() {
    Codec<SpoutSupport.Meta> codec = SpoutSupport.nullableMetadataCodec("batch metadata of test",
        getClass().getClassLoader());
    // FeederBatchSpout's metadata: emitter task index -> tuples. JSON would make the keys strings (and a replay
    // after a restart would emit nothing, looking up Integer 0).
    Map<Integer, List<List<Object>>> feeder = new HashMap<>();
    feeder.put(0, new ArrayList<>(List.of(new Values("the cow"), new Values("the moon"))));
    assertEquals(feeder, codec.decode(codec.encode(new SpoutSupport.Meta(feeder))).value());
    Map<String, Object> ints = Map.of("n", 3); // an Integer JSON would widen to Long
    assertEquals(ints, codec.decode(codec.encode(new SpoutSupport.Meta(ints))).value());
    // Metadata that JSON keeps exactly stays JSON, as Trident writes it to ZooKeeper; such bytes read back as before.
    Map<String, Object> json = Map.of("start", 3L, "ids", List.of("a", "b"));
    byte[] bytes = codec.encode(new SpoutSupport.Meta(json));
    assertEquals(json, TridentJson.parse(bytes, "json"));
    assertEquals(json, codec.decode(bytes).value());
    assertEquals(null, codec.decode(codec.encode(new SpoutSupport.Meta(null))).value());
    Object neither = new Object();
    CodecException e = assertThrows(CodecException.class, () -> codec.encode(new SpoutSupport.Meta(neither)));
    assertFalse(EpochalException.isRetryable(e));
  }

  private static Map<String, Long> counts(InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store) {
    Map<String, Long> counts = new TreeMap<>();
    store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v.value()));
    return counts;
  }
}
