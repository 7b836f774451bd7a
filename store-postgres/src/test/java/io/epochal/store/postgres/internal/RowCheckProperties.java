package io.epochal.store.postgres.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The row check encoding: exact round trips, and every single-byte change or truncation is caught. */
class RowCheckProperties {
  private static final TableSchema SCHEMA = TableSchema.builder("t").key("k", ColumnType.STRING)
      .value("i", ColumnType.INT64).value("u", ColumnType.UINT64).value("d", ColumnType.DOUBLE)
      .value("b", ColumnType.BOOLEAN).value("s", ColumnType.STRING).value("y", ColumnType.BYTES)
      .requiredValue("r", ColumnType.INT64).build();
  private static final List<Column> VALUES = SCHEMA.valueColumns();

  /**
   * Rows of every column type, each nullable value null or not. One {@code combine} of independent arbitraries (not
   * nested {@code flatMap}s, which took 40 to 55 s per property of 1000 rows in a loaded CI run): the same values.
   */
  @Provide
  Arbitrary<Row> rows() {
    return Combinators.combine(Arbitraries.strings().ofMaxLength(8), Arbitraries.longs(),
        Arbitraries.of(false, true).list().ofSize(6), Arbitraries.longs(), Arbitraries.longs(), Arbitraries.doubles(),
        Arbitraries.strings().ofMaxLength(20), Arbitraries.bytes().array(byte[].class).ofMaxSize(40))
        .as((k, r, nulls, i, u, d, s, y) -> {
          Object[] v = {i, u, d, d > 0, s, y, r};
          for (int c = 0; c < 6; c++) {
            if (nulls.get(c)) {
              v[c] = null;
            }
          }
          return Row.of(SCHEMA.key(k), v);
        });
  }

  @Property
  void shouldRoundTripEveryRow(@ForAll("rows") Row row) {
    byte[] bytes = RowCheck.encode(row.key().hash(), VALUES, row.values());
    Object[] back = RowCheck.decode(row.key().hash(), VALUES, bytes, RowCheck.crc(bytes));
    assertEquals(row, Row.of(row.key(), back));
  }

  @Property
  void shouldCatchEverySingleByteChangeAndEveryTruncation(@ForAll("rows") Row row, @ForAll byte flip) {
    byte[] bytes = RowCheck.encode(row.key().hash(), VALUES, row.values());
    int crc = RowCheck.crc(bytes);
    for (int i = 0; i < bytes.length; i++) {
      byte[] damaged = bytes.clone();
      damaged[i] ^= (byte) (flip == 0 ? 1 : flip);
      assertThrows(IllegalArgumentException.class, () -> RowCheck.decode(row.key().hash(), VALUES, damaged, crc));
    }
    byte[] shorter = Arrays.copyOf(bytes, bytes.length - 1);
    assertThrows(IllegalArgumentException.class, () -> RowCheck.decode(row.key().hash(), VALUES, shorter, crc));
    assertThrows(IllegalArgumentException.class, () -> RowCheck.decode(row.key().hash() + 1, VALUES, bytes, crc),
        "values of another key");
  }

  @Property
  void shouldCheckValuesJustReadAsDecodeWould(@ForAll("rows") Row row, @ForAll int otherCrc) {
    List<Object> values = row.values();
    byte[] bytes = RowCheck.encode(row.key().hash(), VALUES, values);
    int crc = RowCheck.crc(bytes);
    RowCheck.check(VALUES, bytes, crc, values);
    if (otherCrc != crc) {
      IllegalArgumentException fast = assertThrows(IllegalArgumentException.class,
          () -> RowCheck.check(VALUES, bytes, otherCrc, values));
      IllegalArgumentException full = assertThrows(IllegalArgumentException.class,
          () -> RowCheck.decode(row.key().hash(), VALUES, bytes, otherCrc));
      assertEquals(full.getMessage(), fast.getMessage());
    }
    List<Object> requiredNull = new ArrayList<>(values);
    requiredNull.set(requiredNull.size() - 1, null);
    byte[] nullBytes = RowCheck.encode(row.key().hash(), VALUES, requiredNull);
    IllegalArgumentException fast = assertThrows(IllegalArgumentException.class,
        () -> RowCheck.check(VALUES, nullBytes, RowCheck.crc(nullBytes), requiredNull));
    IllegalArgumentException full = assertThrows(IllegalArgumentException.class,
        () -> RowCheck.decode(row.key().hash(), VALUES, nullBytes, RowCheck.crc(nullBytes)));
    assertEquals(full.getMessage(), fast.getMessage());
  }

  @Example
  void shouldDecodeStrictlyEvenWhenTheCrcMatches() {
    Row row = Row.of(SCHEMA.key("k"), 1L, 2L, 3.0, true, "s", new byte[] {1}, 4L);
    byte[] bytes = RowCheck.encode(row.key().hash(), VALUES, row.values());
    List<byte[]> bad = new ArrayList<>();
    byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
    bad.add(trailing);
    byte[] version = bytes.clone();
    version[0] = 2;
    bad.add(version);
    byte[] requiredNull = RowCheck.encode(row.key().hash(), VALUES, Arrays.asList(1L, 2L, 3.0, true, "s",
        new byte[] {1}, null));
    bad.add(requiredNull);
    for (byte[] b : bad) {
      assertThrows(IllegalArgumentException.class, () -> RowCheck.decode(row.key().hash(), VALUES, b,
          RowCheck.crc(b)));
    }
    byte[] invalidUtf8 = RowCheck.encode(row.key().hash(), VALUES, Arrays.asList(null, null, null, null, "\u00e9",
        null, 1L));
    invalidUtf8[invalidUtf8.length - 9 - 1] = (byte) 0xff; // the second byte of é
    assertThrows(IllegalArgumentException.class, () -> RowCheck.decode(row.key().hash(), VALUES, invalidUtf8,
        RowCheck.crc(invalidUtf8)));
    assertArrayEquals(bytes, RowCheck.encode(row.key().hash(), VALUES, row.values()), "deterministic");
  }

  @Example
  void shouldEncodeEveryNaNAlike() {
    TableSchema s = TableSchema.builder("n").key("k", ColumnType.INT64).value("d", ColumnType.DOUBLE).build();
    double other = Double.longBitsToDouble(0x7ff8000000000123L);
    assertArrayEquals(RowCheck.encode(1, s.valueColumns(), Arrays.asList(Double.NaN)),
        RowCheck.encode(1, s.valueColumns(), Arrays.asList(other)), "PostgreSQL keeps one NaN");
  }

  /**
   * The bytes and CRC of one row, byte for byte: rows already in a database carry the CRC of this layout, so any
   * change of the encoder (the order, widths or byte order of the fields) would report every stored row as damaged.
   */
  @Example
  void shouldEncodeTheDocumentedLayoutByteForByte() {
    List<Object> values = Arrays.asList(-2L, -1L, -3.5, null, "\u00e9", new byte[] {0, (byte) 0xff}, 7L);
    byte[] bytes = RowCheck.encode(0x0123456789abcdefL, VALUES, values);
    assertEquals("01" + "0123456789abcdef" // version, hash
        + "01fffffffffffffffe" + "01ffffffffffffffff" + "01c00c000000000000" // int64 -2, uint64 max, double -3.5
        + "00" // boolean null
        + "0100000002c3a9" + "010000000200ff" // string "\u00e9" (UTF-8), bytes {0, 0xff}
        + "010000000000000007", HexFormat.of().formatHex(bytes)); // required int64 7
    assertEquals(0x0d26587d, RowCheck.crc(bytes));
  }
}
