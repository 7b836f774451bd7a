package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the table path reuses instead of rebuilding (issue 18): a row builder's values handed to the row it built are
 * never changed by later sets, and keys compare by every part.
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
}
