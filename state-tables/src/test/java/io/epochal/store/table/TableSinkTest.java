package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.StagingUnavailableException;
import io.epochal.errors.TableClaimedTwiceException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.Sink;
import io.epochal.spouts.ListSpout;
import io.epochal.state.Epoch;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A table sink commits its rows inside the epoch: with the batch, never before it, never twice, one writer. */
class TableSinkTest {
  private static final List<String> WORDS = List.of("a", "b", "a", "c", "a", "b");

  private static TableSink<KeyValue<String, Long>> latest() {
    return TableSink.upserts("wc/latest", KeyCodec.strings("word"), KeyValue::key, Codecs.longs(), KeyValue::value);
  }

  /** The sink's table as committed: word → (count, txid). */
  private static Map<String, List<Long>> rows(TableStore store) {
    Map<String, List<Long>> out = new TreeMap<>();
    store.findTable("wc/latest").ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          out.put((String) r.key().get(0), List.of(Codecs.longs().decode(r.getBytes("value")), r.getLong("txid")));
        }
      }
    });
    return out;
  }

  private static PipelineBuilder wordCount(TableStore store, Sink<KeyValue<String, Long>> after) {
    PipelineBuilder b = Pipeline.newBuilder("wc").checkpointStore(TableCheckpointStore.on(store)).partitions(2)
        .retryPolicy(RetryPolicy.immediate(5));
    var values = b.source(ListSpout.of("words", WORDS, 2)).groupBy(w -> w)
        .persistentAggregate("counts", TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs()),
            Aggregators.count())
        .newValuesStream();
    values.to("latest", latest());
    if (after != null) {
      values.to("after", after);
    }
    return b;
  }

  @Test
  void shouldCommitEachBatchsRowsWithTheBatchKeepingTheLastValueOfAKey() {
    TableStore store = TableStores.inMemory();
    try (Pipeline p = wordCount(store, null).build()) {
      p.runUntilIdle();
    }
    assertEquals(Map.of("a", List.of(3L, 3L), "b", List.of(2L, 3L), "c", List.of(1L, 2L)), rows(store));
  }

  @Test
  void shouldLeaveNothingOfAFailedAttemptAndStageTheReplayOnce() {
    TableStore store = TableStores.inMemory();
    AtomicInteger attempts = new AtomicInteger();
    List<Map<String, List<Long>>> seenWhenFailing = new ArrayList<>();
    Sink<KeyValue<String, Long>> failingOnce = new Sink<>() {
      @Override
      public void stage(Epoch epoch, List<KeyValue<String, Long>> records) {
        if (epoch.txid() == 2 && attempts.incrementAndGet() == 1) {
          seenWhenFailing.add(rows(store)); // the table sink staged batch 2 already: nothing of it is visible
          throw new EpochalException("injected: the second sink fails batch 2 once", null, true,
              io.epochal.errors.ErrorContext.NONE);
        }
      }
    };
    try (Pipeline p = wordCount(store, failingOnce).build()) {
      p.runUntilIdle();
    }
    assertEquals(List.of(Map.of("a", List.of(1L, 1L), "b", List.of(1L, 1L))), seenWhenFailing);
    assertEquals(2, attempts.get());
    assertEquals(Map.of("a", List.of(3L, 3L), "b", List.of(2L, 3L), "c", List.of(1L, 2L)), rows(store));
  }

  @Test
  void shouldRefuseASecondWriterOfItsTable() {
    TableStore store = TableStores.inMemory();
    PipelineBuilder b = Pipeline.newBuilder("two").checkpointStore(TableCheckpointStore.on(store));
    b.source(ListSpout.of("words", WORDS, 2)).groupBy(w -> w)
        .persistentAggregate("counts", TableStates.builder(KeyCodec.strings(), Codecs.longs()).table("wc/latest")
            .nonTransactional(), Aggregators.count())
        .newValuesStream().to("latest", latest());
    EpochalException e = assertThrows(EpochalException.class, () -> {
      try (Pipeline p = b.build()) {
        p.runUntilIdle();
      }
    });
    Throwable t = e;
    while (t != null && !(t instanceof TableClaimedTwiceException)) {
      t = t.getCause();
    }
    assertTrue(t instanceof TableClaimedTwiceException, () -> "not a claim conflict: " + e);
    assertTrue(t.getMessage().contains("wc/latest"), t.getMessage());
  }

  @Test
  void shouldRefuseACheckpointStoreWithoutTableStaging() {
    PipelineBuilder b = Pipeline.newBuilder("plain").checkpointStore(new InMemoryCheckpointStore());
    b.source(ListSpout.of("words", WORDS, 2)).map(w -> new KeyValue<>(w, 1L)).to("latest", latest());
    EpochalException e = assertThrows(EpochalException.class, () -> {
      try (Pipeline p = b.build()) {
        p.runUntilIdle();
      }
    });
    Throwable t = e;
    while (t != null && !(t instanceof StagingUnavailableException)) {
      t = t.getCause();
    }
    assertTrue(t instanceof StagingUnavailableException, () -> "not a staging refusal: " + e);
    assertFalse(((StagingUnavailableException) t).retryable());
  }
}
