package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.store.rocksdb.internal.KeyEncoding.Kind;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link KeyEncoding#encode(List, TableKey)}, the table key's encoding without boxing its hash (and, for one string
 * part, straight into an exact array), gives the bytes of the general {@link KeyEncoding#encode(List, Object[])}.
 */
class TableKeyEncodingProperties {
  private static final TableSchema ONE_STRING = TableSchema.builder("t1")
      .key(Column.required("word", ColumnType.STRING)).value(Column.required("v", ColumnType.BYTES)).build();
  private static final TableSchema MIXED = TableSchema.builder("t2")
      .key(Column.required("s", ColumnType.STRING)).key(Column.required("n", ColumnType.INT64))
      .key(Column.required("b", ColumnType.BYTES)).value(Column.required("v", ColumnType.BYTES)).build();

  @Provide
  Arbitrary<String> strings() {
    // ASCII, zero bytes (escaped), non-ASCII and supplementary characters
    return Arbitraries.strings().withChars('a', 'z', '\0', 'é', '日').withCharRange('\uD83D', '\uD83D')
        .ofMaxLength(12).filter(s -> s.codePoints().allMatch(c -> c < 0xD800 || c > 0xDFFF));
  }

  @Property(tries = 500)
  void aOneStringKeyEncodesAsTheGeneralEncoding(@ForAll("strings") String word) {
    TableKey key = TableKey.of(ONE_STRING, word);
    List<Kind> kinds = SchemaText.kinds(ONE_STRING.keyColumns());
    byte[] general = KeyEncoding.encode(kinds, new Object[] {key.hash(), word});
    assertArrayEquals(general, KeyEncoding.encode(kinds, key));
    assertEquals(List.of(key.hash(), word), List.of(KeyEncoding.decode(kinds, general)));
  }

  @Property(tries = 300)
  void aKeyOfSeveralPartsEncodesAsTheGeneralEncoding(@ForAll("strings") String s, @ForAll long n,
      @ForAll byte[] b) {
    TableKey key = TableKey.of(MIXED, s, n, b);
    List<Kind> kinds = SchemaText.kinds(MIXED.keyColumns());
    assertArrayEquals(KeyEncoding.encode(kinds, new Object[] {key.hash(), s, n, b}), KeyEncoding.encode(kinds, key));
  }
}
