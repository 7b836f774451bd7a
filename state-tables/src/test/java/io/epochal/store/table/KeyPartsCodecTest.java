package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.CodecException;
import io.epochal.pipeline.Bytes;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyPartsCodecTest {
  /** A key of every column type. */
  record Mixed(long i, long u, double d, boolean b, String s, byte[] raw) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Mixed m && i == m.i && u == m.u && Double.compare(d, m.d) == 0 && b == m.b
          && s.equals(m.s) && Arrays.equals(raw, m.raw);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(i) * 31 + s.hashCode();
    }
  }

  private static final KeyCodec<Mixed> MIXED = KeyCodec.of("mixed:v1",
      List.of(Column.required("i", ColumnType.INT64), Column.required("u", ColumnType.UINT64),
          Column.required("d", ColumnType.DOUBLE), Column.required("b", ColumnType.BOOLEAN),
          Column.required("s", ColumnType.STRING), Column.required("raw", ColumnType.BYTES)),
      m -> List.of(m.i(), m.u(), m.d(), m.b(), m.s(), m.raw()),
      k -> new Mixed((Long) k.get(0), (Long) k.get(1), (Double) k.get(2), (Boolean) k.get(3), (String) k.get(4),
          (byte[]) k.get(5)));

  private static <K> KeyPartsCodec<K> codec(KeyCodec<K> keys) {
    TableSchema.Builder schema = TableSchema.builder("keys");
    keys.columns().forEach(schema::key);
    return new KeyPartsCodec<>(keys, schema.build());
  }

  @Test
  void everyColumnTypeRoundTrips() {
    KeyPartsCodec<Mixed> codec = codec(MIXED);
    Mixed key = new Mixed(-7, Long.MIN_VALUE, 2.5, true, "шоу-42", new byte[] {0, -1, 7});
    assertEquals(key, codec.decode(codec.encode(key)));
    KeyPartsCodec<Bytes> bytes = codec(KeyCodec.bytes());
    Bytes raw = Bytes.of(new byte[] {1, 2, 3});
    assertEquals(raw, bytes.decode(bytes.encode(raw)), "a bytes key (a byte[] column) round-trips");
  }

  @Test
  void theStoredLayoutIsPinned() {
    KeyCodec<List<Object>> keys = KeyCodec.of("pair:v1",
        List.of(Column.required("s", ColumnType.STRING), Column.required("n", ColumnType.INT64)),
        l -> l, k -> List.of(k.get(0), k.get(1)));
    byte[] encoded = codec(keys).encode(List.of("ab", 258L));
    assertEquals("00000002" + "6162" + "0000000000000102", HexFormat.of().formatHex(encoded));
    assertArrayEquals(encoded, codec(keys).encode(codec(keys).decode(encoded)));
  }

  @Test
  void truncatedOrTrailingBytesAreNamedErrors() {
    KeyPartsCodec<Long> longs = codec(KeyCodec.longs());
    byte[] encoded = longs.encode(5L);
    CodecException truncated = assertThrows(CodecException.class,
        () -> longs.decode(Arrays.copyOf(encoded, encoded.length - 1)));
    assertTrue(truncated.getMessage().contains("key-parts:"), truncated.getMessage());
    assertThrows(CodecException.class, () -> longs.decode(Arrays.copyOf(encoded, encoded.length + 1)));
  }

  @Test
  void aSchemaWithOtherKeyColumnsIsRefused() {
    TableSchema other = TableSchema.builder("other").key(Column.required("x", ColumnType.STRING)).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new KeyPartsCodec<>(KeyCodec.longs(), other));
    assertTrue(e.getMessage().contains("other"), e.getMessage());
  }
}
