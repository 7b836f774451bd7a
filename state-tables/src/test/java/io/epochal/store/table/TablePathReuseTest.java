package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.epochal.codec.Codecs;
import io.epochal.state.MapState;
import io.epochal.state.ValueUpdater;
import io.epochal.store.ManualEpochs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the table path reuses instead of rebuilding (issue 18): a row builder's values handed to the row it built are
 * never changed by later sets, keys compare by every part, and a map state maps each key to its table key once per
 * epoch, not once per read and again per write.
 */
class TablePathReuseTest {
  private static final TableSchema SCHEMA = TableSchema.builder("t")
      .key(Column.required("a", ColumnType.STRING)).key(Column.required("b", ColumnType.BYTES))
      .value(Column.required("v", ColumnType.INT64)).value(Column.of("w", ColumnType.BYTES)).build();

  @Test
  void aBuilderSetAfterBuildLeavesTheBuiltRowUnchanged() {
    Row.Builder b = Row.builder(TableKey.of(SCHEMA, "x", new byte[] {1}));
    Row first = b.set("v", 1L).set("w", new byte[] {7}).build();
    Row second = b.set("v", 2L).set("w", null).build();
    assertEquals(1L, first.getLong("v"));
    assertArrayEquals(new byte[] {7}, first.getBytes("w"));
    assertEquals(2L, second.getLong("v"));
    assertEquals(null, second.getBytes("w"));
    assertEquals(3L, b.set("v", 3L).build().getLong("v"));
    assertEquals(2L, second.getLong("v"), "the second row too is left alone by a third set");
  }

  @Test
  void keysAreEqualOnlyWhenEveryPartIsEqual() {
    TableKey k = TableKey.of(SCHEMA, "x", new byte[] {1, 2});
    assertEquals(k, TableKey.of(SCHEMA, List.of("x", new byte[] {1, 2})));
    assertEquals(k.hashCode(), TableKey.of(SCHEMA, "x", new byte[] {1, 2}).hashCode());
    assertNotEquals(k, TableKey.of(SCHEMA, "y", new byte[] {1, 2}));
    assertNotEquals(k, TableKey.of(SCHEMA, "x", new byte[] {1, 3}));
  }

  @Test
  void aMapStateMapsEachKeyToItsTableKeyOncePerEpoch() {
    AtomicInteger mapped = new AtomicInteger();
    KeyCodec<String> strings = KeyCodec.strings();
    KeyCodec<String> counting = new KeyCodec<>() {
      @Override
      public List<Column> columns() {
        return strings.columns();
      }

      @Override
      public List<?> toParts(String key) {
        mapped.incrementAndGet();
        return strings.toParts(key);
      }

      @Override
      public String fromKey(TableKey key) {
        return strings.fromKey(key);
      }

      @Override
      public String id() {
        return strings.id();
      }
    };
    TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
    ManualEpochs epochs = new ManualEpochs(cps, "wc");
    MapState<String, Long> map = TableStates.nonTransactional(counting, Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    cps.load("wc");
    ValueUpdater<Long> plusOne = v -> v.orElse(0L) + 1;
    map.begin(epochs.open(1));
    assertEquals(Map.of("a", 1L, "b", 1L), map.multiUpdate(Map.of("a", plusOne, "b", plusOne)));
    assertEquals(2, mapped.get(), "read, then written: each key mapped once");
    map.end();
    epochs.commit(new byte[] {0});
    map.begin(epochs.open(2));
    assertEquals(Map.of("a", 2L), map.multiUpdate(Map.of("a", plusOne)));
    assertEquals(3, mapped.get(), "a new epoch maps its keys anew");
    map.end();
    epochs.commit(new byte[] {0});
  }
}
