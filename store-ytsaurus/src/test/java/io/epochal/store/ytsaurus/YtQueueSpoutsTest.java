package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStores;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The YTsaurus queue spouts against the {@link YtProtocolDouble} (a test double of the HTTP API, not YTsaurus): exact
 * word counts from a 3-tablet queue with the consumer advanced in the epoch, replays of recorded ranges, caps, new
 * tablets, the start at the consumer's offset, trimmed rows, decode failures, an old-offset mismatch and an unreachable
 * proxy.
 */
class YtQueueSpoutsTest {
  private static YtProtocolDouble yt;

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(3);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  private static QueueWorld filled() {
    QueueWorld w = new QueueWorld(yt, 3);
    w.append(0, 0, 40);
    w.append(1, 0, 25);
    w.append(2, 0, 7);
    return w;
  }

  private static Pipeline pipeline(String name, Spout<String, ?> spout, TableCheckpointStore checkpoints,
      Consumer<PipelineBuilder> tweak) {
    PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints)
        .retryPolicy(new RetryPolicy(5, Duration.ZERO, Duration.ZERO));
    tweak.accept(b);
    GroupedStream<String, String> words = b.source(spout).flatMap(s -> Arrays.asList(s.split(" "))).groupBy(x -> x);
    words.persistentAggregate("counts", TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    return b.build();
  }

  private static void runToEnd(Pipeline p) {
    try (p) {
      p.runUntilIdle();
    }
  }

  @Test
  void shouldCountExactlyAndAdvanceTheConsumerInTheEpochBothKinds() {
    for (boolean opaque : new boolean[] {false, true}) {
      QueueWorld w = filled();
      try (YtTableStore store = w.store().build()) {
        TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
        YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(6).consumer(w.consumer)
            .advanceConsumerIn(store, "wc").build();
        Spout<String, ?> spout = opaque ? YtQueueSpouts.opaque(cfg) : YtQueueSpouts.transactional(cfg);
        runToEnd(pipeline("wc", spout, checkpoints, b -> b.partitions(2).maxBatchesInFlight(2)));
        assertEquals(w.recount(null, 3), QueueWorld.counts(store, "wc/counts", true), opaque ? "opaque" : "tx");
        assertEquals(Map.of(0, 40L, 1, 25L, 2, 7L), w.consumerOffsets());
        assertEquals(w.consumerOffsets(), QueueWorld.committedEnds(store, "wc"));
        assertTrue(yt.commandCounts().getOrDefault("advance_queue_consumer", 0) > 0);
      }
    }
  }

  @Test
  void shouldReplayExactlyTheRecordedRangeInANewSpout() {
    QueueWorld w = filled();
    YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(4).build();
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> first = YtQueueSpouts.transactional(cfg);
    PartitionedMetadata<YtQueueRange> m1 = first.nextBatch(1, Optional.empty()).orElseThrow();
    PartitionedMetadata<YtQueueRange> m2 = first.nextBatch(2, Optional.of(m1)).orElseThrow();
    List<String> emitted = new ArrayList<>();
    first.emit(new BatchAttempt(2, 1), m2, emitted::add);
    first.close();
    assertEquals(new YtQueueRange(4, 8), m2.partitions().get("0"));
    assertEquals(new YtQueueRange(4, 7), m2.partitions().get("2"));
    w.append(0, 40, 10); // appended after the cut: not part of the recorded range
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> second = YtQueueSpouts.transactional(cfg);
    List<String> replayed = new ArrayList<>();
    second.emit(new BatchAttempt(2, 2), m2, replayed::add);
    second.close();
    assertEquals(emitted, replayed);
    List<String> expected = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      YtQueueRange r = m2.partitions().get(Integer.toString(t));
      for (long i = r.from(); i < r.to(); i++) {
        expected.add(QueueWorld.sentence(t, (int) i));
      }
    }
    assertEquals(expected, replayed);
  }

  @Test
  void shouldKeepEachPartitionWithinTheRowAndByteCaps() {
    QueueWorld w = filled();
    for (int cap : new int[] {1, 5, 64}) {
      TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> spout = YtQueueSpouts.transactional(
          w.spout("events").maxRowsPerPartition(cap).build());
      PartitionedMetadata<YtQueueRange> m = spout.nextBatch(1, Optional.empty()).orElseThrow();
      for (YtQueueRange r : m.partitions().values()) {
        assertTrue(r.size() >= 1 && r.size() <= cap, r + " with cap " + cap);
      }
      spout.close();
    }
    long maxBytes = 40;
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> spout = YtQueueSpouts.transactional(
        w.spout("events").maxBytesPerPartition(maxBytes).build());
    PartitionedMetadata<YtQueueRange> m = spout.nextBatch(1, Optional.empty()).orElseThrow();
    spout.close();
    for (int t = 0; t < 3; t++) {
      YtQueueRange r = m.partitions().get(Integer.toString(t));
      long weight = 0;
      for (long i = r.from(); i < r.to(); i++) {
        weight += YtProtocolDouble.dataWeight(yt.queueRows(w.queue, t).get((int) i));
      }
      assertTrue(r.size() == 1 || weight <= maxBytes, r + " weighs " + weight);
      long next = YtProtocolDouble.dataWeight(yt.queueRows(w.queue, t).get((int) r.to()));
      assertTrue(weight + next > maxBytes, "the cut stopped early at " + r);
    }
  }

  @Test
  void shouldPickUpNewTabletsAndCountShortReadsExactly() {
    QueueWorld w = filled();
    try (YtTableStore store = w.store().build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      YtQueueSpoutConfig<String> cfg = w.spout("events").consumer(w.consumer).advanceConsumerIn(store, "grow")
          .build();
      yt.pullLimit(3); // every pull answers at most 3 rows: fewer than asked
      try {
        runToEnd(pipeline("grow", YtQueueSpouts.transactional(cfg), checkpoints, b -> { }));
        yt.addTablets(w.queue, 5);
        w.append(3, 0, 9);
        w.append(4, 0, 2);
        w.append(0, 40, 3);
        runToEnd(pipeline("grow", YtQueueSpouts.transactional(cfg), checkpoints, b -> { }));
      } finally {
        yt.pullLimit(0);
      }
      assertEquals(w.recount(null, 5), QueueWorld.counts(store, "grow/counts", true));
      assertEquals(Map.of(0, 43L, 1, 25L, 2, 7L, 3, 9L, 4, 2L), w.consumerOffsets());
    }
  }

  @Test
  void shouldStartAtTheConsumersOffsetsAndExposeRowCoordinates() {
    QueueWorld w = filled();
    yt.setConsumerOffset(w.consumer, w.queue, 0, 30);
    yt.setConsumerOffset(w.consumer, w.queue, 2, 7);
    try (YtTableStore store = w.store().build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      YtQueueSpoutConfig<String> cfg = w.spout("events").consumer(w.consumer).advanceConsumerIn(store, "late")
          .readThroughConsumer().build();
      runToEnd(pipeline("late", YtQueueSpouts.opaque(cfg), checkpoints, b -> { }));
      assertEquals(w.recount(null, 3), sum(w.recount(Map.of(0, 30L, 1, 0L, 2, 7L), 3),
          QueueWorld.counts(store, "late/counts", true)));
      assertEquals(Map.of(0, 40L, 1, 25L, 2, 7L), w.consumerOffsets());
    }
    TransactionalSpout<YtQueueRow, PartitionedMetadata<YtQueueRange>> raw = YtQueueSpouts.transactional(
        YtQueueSpoutConfig.builder("raw", yt.balancerAddress(), w.queue).token("t").maxRowsPerPartition(2).build());
    PartitionedMetadata<YtQueueRange> m = raw.nextBatch(1, Optional.empty()).orElseThrow();
    List<YtQueueRow> rows = new ArrayList<>();
    raw.emit(new BatchAttempt(1, 1), m, rows::add);
    raw.close();
    YtQueueRow r = rows.get(2);
    assertEquals(1, r.partition());
    assertEquals(0, r.offset());
    assertTrue(r.timestamp().isPresent());
    assertEquals(java.util.Set.of("text"), r.columns());
    assertEquals(QueueWorld.sentence(1, 0), r.string("text").orElseThrow());
    assertThrows(IllegalArgumentException.class, () -> r.int64("text"));
  }

  private static Map<String, Long> sum(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> out = new java.util.TreeMap<>(a);
    b.forEach((k, v) -> out.merge(k, v, Long::sum));
    return out;
  }

  @Test
  void shouldRefuseToReadAThroughAnUnregisteredConsumer() {
    QueueWorld w = filled();
    String other = w.consumer + "_unregistered";
    yt.createConsumer(other);
    try (Pipeline p = pipeline("unregistered", YtQueueSpouts.transactional(w.spout("events").consumer(other)
        .readThroughConsumer().build()), TableCheckpointStore.on(TableStores.inMemory()), b -> { })) {
      YtQueueException e = assertThrows(YtQueueException.class, p::runUntilIdle);
      assertFalse(e.retryable());
      assertEquals(w.queue, e.queue());
      assertInstanceOf(YtException.class, e.getCause());
      assertTrue(((YtException) e.getCause()).hasCode(YtError.AUTHORIZATION_ERROR));
    }
  }

  @Test
  void shouldStopAtTrimmedRowsUnderFailAndSkipThemOnlyWhenAskedTo() {
    QueueWorld w = filled();
    yt.trimRows(w.queue, 1, 5); // the consumer is at 0 for every partition
    try (YtTableStore store = w.store().build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      YtQueueSpoutConfig<String> strict = w.spout("events").consumer(w.consumer).advanceConsumerIn(store, "trim")
          .build();
      try (Pipeline p = pipeline("trim", YtQueueSpouts.transactional(strict), checkpoints, b -> { })) {
        YtQueueTrimmedException e = assertThrows(YtQueueTrimmedException.class, p::runUntilIdle);
        assertFalse(e.retryable());
        assertEquals(1, e.partition().getAsInt());
        assertEquals(0, e.offset().getAsLong());
        assertEquals(5, e.firstAvailable());
        assertEquals(w.queue, e.context().table().orElseThrow());
      }
      assertEquals(Map.of(), w.consumerOffsets());
      assertEquals(Map.of(), QueueWorld.counts(store, "trim/counts", true));

      YtQueueSpoutConfig<String> skipping = w.spout("events").consumer(w.consumer).advanceConsumerIn(store, "trim")
          .trimmedRows(YtTrimmedRowsPolicy.SKIP).build();
      assertEquals(SpoutKind.NON_TRANSACTIONAL, YtQueueSpouts.transactional(skipping).kind());
      assertThrows(GuaranteeNotDeliverableException.class,
          () -> pipeline("trim", YtQueueSpouts.transactional(skipping), checkpoints, b -> { }));
      runToEnd(pipeline("trim", YtQueueSpouts.transactional(skipping), checkpoints,
          b -> b.guarantee(Guarantee.AT_LEAST_ONCE)));
      assertEquals(w.recount(null, 3), QueueWorld.counts(store, "trim/counts", true));
      assertEquals(Map.of(0, 40L, 1, 25L, 2, 7L), w.consumerOffsets());
    }
  }

  @Test
  void shouldFailTheReplayOfARecordedRangeWhoseRowsWereTrimmed() {
    QueueWorld w = filled();
    YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(10).build();
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> cutter = YtQueueSpouts.transactional(cfg);
    PartitionedMetadata<YtQueueRange> m = cutter.nextBatch(1, Optional.empty()).orElseThrow();
    cutter.close();
    yt.trimRows(w.queue, 0, 3);
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> replayer = YtQueueSpouts.transactional(cfg);
    YtQueueTrimmedException e = assertThrows(YtQueueTrimmedException.class,
        () -> replayer.emit(new BatchAttempt(1, 2), m, x -> { }));
    replayer.close();
    assertEquals(0, e.partition().getAsInt());
    assertEquals(0, e.offset().getAsLong());
    assertEquals(3, e.firstAvailable());
  }

  @Test
  void shouldStopAtARowTheDecoderRejectsNamingItsCoordinates() {
    QueueWorld w = filled();
    YtQueueSpoutConfig<String> cfg = w.spout("events").build();
    YtQueueSpoutConfig<String> picky = YtQueueSpoutConfig.builder("events", yt.balancerAddress(), w.queue)
        .token("t").decoder(row -> {
          String text = row.string("text").orElseThrow();
          if (row.partition() == 1 && row.offset() == 12) {
            throw new IllegalArgumentException("bad row " + text);
          }
          return text;
        }).build();
    try (YtTableStore store = w.store().build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      try (Pipeline p = pipeline("picky", YtQueueSpouts.transactional(picky), checkpoints, b -> { })) {
        YtQueueRowDecodeException e = assertThrows(YtQueueRowDecodeException.class, p::runUntilIdle);
        assertFalse(e.retryable());
        assertEquals(1, e.partition().getAsInt());
        assertEquals(12, e.offset().getAsLong());
        assertEquals("1@12", e.context().key().orElseThrow());
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
      }
      assertEquals(Map.of(), QueueWorld.counts(store, "picky/counts", true));
    }
    assertEquals("events", cfg.name());
  }

  @Test
  void shouldStopWhenAnotherWriterAdvancedTheConsumerAndCommitNothing() {
    QueueWorld w = filled();
    try (YtTableStore store = w.store().build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(10).consumer(w.consumer)
          .advanceConsumerIn(store, "owned").build();
      Pipeline first = pipeline("owned", YtQueueSpouts.transactional(cfg), checkpoints, b -> { });
      first.run(2);
      first.close();
      Map<Integer, Long> ends = QueueWorld.committedEnds(store, "owned");
      Map<String, Long> counts = QueueWorld.counts(store, "owned/counts", true);
      assertEquals(ends, w.consumerOffsets());
      assertEquals(20L, ends.get(0));
      yt.setConsumerOffset(w.consumer, w.queue, 0, 33); // another consumer or tool
      try (Pipeline p = pipeline("owned", YtQueueSpouts.transactional(cfg), checkpoints, b -> { })) {
        YtConsumerOffsetMismatchException e = assertThrows(YtConsumerOffsetMismatchException.class,
            p::runUntilIdle);
        assertFalse(e.retryable());
        assertEquals("owned", e.context().pipeline().orElseThrow());
        assertEquals(w.queue, e.queue());
        assertEquals(w.consumer, e.consumer());
        assertEquals(0, e.partition().getAsInt());
        assertEquals(20, e.expectedOffset());
        assertEquals(33, e.foundOffset());
        assertEquals(3, e.context().txid().getAsLong());
      }
      assertEquals(ends, QueueWorld.committedEnds(store, "owned"));
      assertEquals(counts, QueueWorld.counts(store, "owned/counts", true));
      assertEquals(33L, w.consumerOffsets().get(0));
      assertEquals(ends.get(1), w.consumerOffsets().get(1));
    }
  }

  @Test
  void shouldFailRetryablyAndThenStopWhenTheProxyIsUnreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    YtQueueSpoutConfig<String> cfg = YtQueueSpoutConfig.builder("events", "127.0.0.1:" + port, "//tmp/q")
        .token("t").decoder(YtRowDecoder.utf8("text")).retries(2, Duration.ofMillis(1), Duration.ofMillis(2))
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(2)).build();
    TransactionalSpout<String, PartitionedMetadata<YtQueueRange>> spout = YtQueueSpouts.transactional(cfg);
    YtQueueUnavailableException direct = assertThrows(YtQueueUnavailableException.class,
        () -> spout.nextBatch(1, Optional.empty()));
    assertTrue(direct.retryable());
    assertEquals("//tmp/q", direct.queue());
    spout.close();
    try (Pipeline p = pipeline("dead", YtQueueSpouts.transactional(cfg),
        TableCheckpointStore.on(TableStores.inMemory()), b -> { })) { // the engine's policy: 5 attempts
      BatchFailedException e = assertThrows(BatchFailedException.class, p::runUntilIdle);
      assertEquals(5, e.attempts());
      assertInstanceOf(YtQueueUnavailableException.class, e.getCause());
    }
  }
}
