package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.Spout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The YTsaurus queue spouts' lag report against the {@link YtProtocolDouble} (a test double of the HTTP API, not
 * YTsaurus): each tablet's total row count minus the committed batch's end while a queue is read part way, 0 once it
 * is drained, the start of a partition without a committed batch (the consumer's offset, or the first row still there
 * after a trim), new tablets, reads from another thread while a pipeline runs, and a failed read that leaves the
 * pipeline alone.
 */
class YtQueueLagTest {
  private static YtProtocolDouble yt;

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
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

  private static Pipeline pipeline(String name, Spout<String, ?> spout, TableCheckpointStore checkpoints) {
    PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints).partitions(2).maxBatchesInFlight(1);
    GroupedStream<String, String> words = b.source(spout).flatMap(s -> Arrays.asList(s.split(" "))).groupBy(x -> x);
    words.persistentAggregate("counts", TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    return b.build();
  }

  private static Map<String, PartitionLag> lag(Spout<?, ?> spout) {
    return ((LagReporting) spout).sourceLag();
  }

  @Test
  void aTransactionalSpoutReportsTheRowCountMinusTheCommittedRangeEndPerTablet() {
    QueueWorld w = filled();
    yt.setConsumerOffset(w.consumer, w.queue, 1, 5);
    try (YtTableStore store = w.store().build()) {
      YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(6).consumer(w.consumer)
          .advanceConsumerIn(store, "lag").build();
      Spout<String, ?> spout = YtQueueSpouts.transactional(cfg);
      try (Pipeline p = pipeline("lag", spout, TableCheckpointStore.on(store))) {
        assertEquals(Map.of("0", new PartitionLag(40, 0), "1", new PartitionLag(25, 5), "2", new PartitionLag(7, 0)),
            lag(spout), "before the first batch: from the consumer's offsets");
        p.run(2);
        assertEquals(Map.of("0", new PartitionLag(40, 12), "1", new PartitionLag(25, 17), "2", new PartitionLag(7, 7)),
            lag(spout), "two committed batches of at most 6 rows per tablet");
        p.runUntilIdle();
        assertEquals(Map.of("0", new PartitionLag(40, 40), "1", new PartitionLag(25, 25), "2", new PartitionLag(7, 7)),
            lag(spout));
        assertEquals(Map.of(0, 40L, 1, 25L, 2, 7L), w.consumerOffsets(), "the report agrees with the consumer");
        w.append(2, 7, 4);
        assertEquals(4, lag(spout).get("2").lag(), "rows appended since the last commit");
      }
      Spout<String, ?> again = YtQueueSpouts.transactional(cfg); // a restarted process, same checkpoint
      try (Pipeline p = pipeline("lag", again, TableCheckpointStore.on(store))) {
        p.runUntilIdle();
        lag(again).values().forEach(l -> assertEquals(0, l.lag(), "drained: " + l));
      }
    }
  }

  @Test
  void anOpaqueSpoutWithoutAConsumerStartsAtTheFirstRowStillThereAndSeesNewTablets() {
    QueueWorld w = filled();
    yt.trimRows(w.queue, 0, 10);
    try (YtTableStore store = w.store().build()) {
      Spout<String, ?> spout = YtQueueSpouts.opaque(w.spout("events").maxRowsPerPartition(100).build());
      try (Pipeline p = pipeline("trimmed", spout, TableCheckpointStore.on(store))) {
        assertEquals(new PartitionLag(40, 10), lag(spout).get("0"), "rows 0..9 are trimmed: never to be read");
        p.runUntilIdle();
        assertEquals(Map.of("0", new PartitionLag(40, 40), "1", new PartitionLag(25, 25), "2", new PartitionLag(7, 7)),
            lag(spout));
        yt.addTablets(w.queue, 4);
        w.append(3, 0, 9);
        assertEquals(new PartitionLag(9, 0), lag(spout).get("3"), "a new tablet, not read yet");
        p.runUntilIdle();
        assertEquals(new PartitionLag(9, 9), lag(spout).get("3"));
      }
    }
  }

  @Test
  void readsFromAnotherThreadAndAFailedReadLeaveThePipelineAndItsCountsAlone() throws Exception {
    QueueWorld w = new QueueWorld(yt, 2);
    for (int i = 0; i < 10; i++) {
      w.append(0, i * 30, 30);
      w.append(1, i * 20, 20);
    }
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    try (YtTableStore store = w.store().build()) {
      Spout<String, ?> spout = YtQueueSpouts.transactional(w.spout("events").maxRowsPerPartition(7).build());
      try (Pipeline p = pipeline("busy", spout, TableCheckpointStore.on(store))) {
        yt.failNext("get_tablet_infos", 1, 503, YtError.of(1, "proxy overloaded"));
        assertThrows(YtQueueUnavailableException.class, () -> lag(spout), "a failed read is an error, not 0");
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
          while (!done.get()) {
            lag(spout).values().forEach(l -> assertTrue(l.committed() <= l.end(), l.toString()));
            reads.incrementAndGet();
          }
        });
        try {
          assertEquals(500, p.runUntilIdle().records());
        } finally {
          done.set(true);
        }
        reader.get();
        assertTrue(reads.get() > 0);
      }
      assertEquals(w.recount(null, 2), QueueWorld.counts(store, "busy/counts", true));
      assertThrows(YtQueueException.class, () -> lag(spout), "a closed spout reports nothing");
    }
  }
}
