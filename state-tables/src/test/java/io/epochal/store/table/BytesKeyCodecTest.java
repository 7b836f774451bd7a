package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.Bytes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link KeyCodec}s of {@link Bytes} keys (moved from batch-core's {@code BytesTest} with the table SPI). */
class BytesKeyCodecTest {

  @Test
  void keyCodecsMapBytesToBytesColumns() {
    KeyCodec<Bytes> codec = KeyCodec.bytes();
    assertEquals("bytes:key", codec.id());
    TableSchema schema = TableSchema.builder("t").key("key", ColumnType.BYTES).build();
    Bytes key = Bytes.of(new byte[] {7, 8});
    TableKey tk = codec.toKey(schema, key);
    assertEquals(io.epochal.hash.FarmHash.farmHash((Object) new byte[] {7, 8}), tk.hash());
    assertEquals(key, codec.fromKey(tk));

    KeyCodec<List<Object>> lists = KeyCodec.list(Column.required("a", ColumnType.BYTES),
        Column.required("b", ColumnType.INT64));
    TableSchema composite = TableSchema.builder("c").key("a", ColumnType.BYTES).key("b", ColumnType.INT64).build();
    assertEquals(List.of(key, 3L), lists.fromKey(lists.toKey(composite, List.of(key, 3))));
  }
}
