package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Bytes;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spouts.ListSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Group keys need value equality (issue 10, finding 6). On the old engine {@code byte[]} keys were accepted (and
 * recommended by the partitioner's message): two equal arrays were two keys, so 2 distinct keys made 4 cells.
 */
class ValueKeysPipelineTest {
  private static final List<String> WORDS = List.of("ab", "cd", "ab", "cd");

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRefuseByteArrayKeysAtTheFirstRecordOfferingBytes() {
    InMemoryBackingMap<Object, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    PipelineBuilder b = Pipeline.newBuilder("array-keys").partitions(2).retryPolicy(RetryPolicy.immediate(5));
    b.source(ListSpout.of("words", WORDS, 2)).groupBy(w -> (Object) utf8(w))
        .persistentAggregate("counts", TransactionalMap.factory(store), Aggregators.count());
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("identity") && e.getMessage().contains("Bytes.of"), e.getMessage());
      assertFalse(e.retryable());
      assertEquals(Optional.of("array-keys"), e.context().pipeline());
      assertEquals(OptionalLong.of(1), e.context().txid());
      assertEquals(0, p.metrics().failedAttempts(), "not retried");
      assertEquals(0, p.lastCommittedTxid());
    }
    assertEquals(Map.of(), store.snapshot(), "no cell was written, least of all four");
  }

  @Test
  void shouldCountBytesKeysByValue() {
    InMemoryBackingMap<Bytes, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    PipelineBuilder b = Pipeline.newBuilder("bytes-keys").partitions(3).threads(2);
    b.source(ListSpout.of("words", WORDS, 1)).groupBy(w -> Bytes.of(utf8(w)))
        .persistentAggregate("counts", TransactionalMap.factory(store), Aggregators.count());
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(Map.of(Bytes.of(utf8("ab")), new TransactionalValue<>(2L, 3),
        Bytes.of(utf8("cd")), new TransactionalValue<>(2L, 4)), store.snapshot());
  }

  @Test
  void shouldStoreBytesKeysInABytesColumn() {
    TableStore tables = TableStores.inMemory();
    TableCheckpointStore checkpoints = TableCheckpointStore.on(tables);
    PipelineBuilder b = Pipeline.newBuilder("bytes-table").partitions(2).checkpointStore(checkpoints);
    b.source(ListSpout.of("words", WORDS, 3)).groupBy(w -> Bytes.of(utf8(w)))
        .persistentAggregate("counts",
            TransactionalTableLayout.factory(KeyCodec.bytes(), Codecs.longs()), Aggregators.count());
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Row> rows = new TreeMap<>();
    try (StoreTransaction tx = tables.begin()) {
      for (Row r : tx.scan(tables.findTable("bytes-table/counts").orElseThrow())) {
        rows.put(new String((byte[]) r.key().get("key"), StandardCharsets.UTF_8), r);
      }
    }
    assertEquals(List.of("ab", "cd"), List.copyOf(rows.keySet()), "one row per distinct key");
    assertEquals(io.epochal.hash.FarmHash.farmHash((Object) utf8("ab")), rows.get("ab").key().hash());
  }
}
