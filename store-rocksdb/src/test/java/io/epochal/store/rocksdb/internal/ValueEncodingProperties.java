package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.rocksdb.internal.KeyEncoding.Kind;
import io.epochal.testing.TriesScale;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The value encoding round-trips every column type and null, and rejects bytes it did not write. */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class ValueEncodingProperties {

  record Values(List<Kind> kinds, List<Object> values) {
  }

  private static final byte[] TABLE = "wc/counts".getBytes(java.nio.charset.StandardCharsets.UTF_8);
  private static final byte[] KEY = {0, 1, 2, 3, 4, 5, 6, 7, 16, 'a', 0, 1};

  private static byte[] enc(Values row) {
    return ValueEncoding.encode(row.kinds(), row.values(), TABLE, KEY);
  }

  private static Object[] dec(Values row, byte[] bytes) {
    return ValueEncoding.decode(row.kinds(), bytes, TABLE, KEY, false);
  }

  @Property(tries = 1000)
  void shouldRoundTrip(@ForAll("rows") Values row, @ForAll boolean legacy) {
    byte[] enc = legacy ? ValueEncoding.encodeLegacy(row.kinds(), row.values()) : enc(row);
    assertEquals(legacy ? ValueEncoding.LEGACY_VERSION : ValueEncoding.VERSION, enc[0]);
    Object[] back = ValueEncoding.decode(row.kinds(), enc, TABLE, KEY, legacy);
    for (int i = 0; i < back.length; i++) {
      Object expected = row.values().get(i);
      if (expected instanceof byte[] b) {
        assertArrayEquals(b, (byte[]) back[i]);
      } else if (expected instanceof Double d) {
        assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits((Double) back[i]));
      } else {
        assertEquals(expected, back[i]);
      }
    }
  }

  @Property(tries = 300)
  void shouldRejectTruncatedAndTrailingBytes(@ForAll("rows") Values row) {
    byte[] enc = enc(row);
    assertThrows(IllegalArgumentException.class, () -> dec(row, Arrays.copyOf(enc, enc.length - 1)));
    assertThrows(IllegalArgumentException.class, () -> dec(row, Arrays.copyOf(enc, enc.length + 1)));
  }

  /** Any change of one byte of a stored cell, to any other value, fails the check (CRC32C: every burst <= 32 bits). */
  @Property(tries = 1000)
  void shouldRejectEveryChangedByte(@ForAll("rows") Values row, @ForAll int position,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 1, max = 255) int xor) {
    byte[] enc = enc(row);
    int at = Math.floorMod(position, enc.length);
    enc[at] ^= (byte) xor;
    assertThrows(IllegalArgumentException.class, () -> dec(row, enc));
  }

  @Property(tries = 300)
  void shouldRejectACellMovedToAnotherKeyOrTable(@ForAll("rows") Values row, @ForAll int position) {
    byte[] enc = enc(row);
    byte[] otherKey = KEY.clone();
    otherKey[Math.floorMod(position, otherKey.length)] ^= 1;
    assertThrows(IllegalArgumentException.class,
        () -> ValueEncoding.decode(row.kinds(), enc, TABLE, otherKey, true));
    assertThrows(IllegalArgumentException.class, () -> ValueEncoding.decode(row.kinds(), enc,
        "wc/other".getBytes(java.nio.charset.StandardCharsets.UTF_8), KEY, true));
  }

  @Property(tries = 200)
  void shouldReadLegacyCellsOnlyWhereAllowed(@ForAll("rows") Values row) {
    byte[] legacy = ValueEncoding.encodeLegacy(row.kinds(), row.values());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dec(row, legacy));
    assertTrue(e.getMessage().contains("version 1"), e.getMessage());
    assertEquals(row.values().size(), ValueEncoding.decode(row.kinds(), legacy, TABLE, KEY, true).length);
  }

  @Example
  void shouldBeCompactForSmallCounters() {
    assertEquals(3 + 4, ValueEncoding.encode(List.of(Kind.INT64), List.of(7L), TABLE, KEY).length);
    assertEquals(2 + 4, ValueEncoding.encode(List.of(Kind.INT64), Arrays.asList((Object) null), TABLE, KEY).length);
  }

  @Example
  void shouldRejectAnotherVersionOrAnotherType() {
    byte[] enc = ValueEncoding.encode(List.of(Kind.INT64), List.of(7L), TABLE, KEY);
    byte[] otherVersion = enc.clone();
    otherVersion[0] = 3;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ValueEncoding.decode(List.of(Kind.INT64), otherVersion, TABLE, KEY, true));
    assertTrue(e.getMessage().contains("version 3"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ValueEncoding.decode(List.of(Kind.STRING), enc, TABLE, KEY, false));
    assertThrows(IllegalArgumentException.class,
        () -> ValueEncoding.decode(List.of(Kind.INT64), new byte[0], TABLE, KEY, true));
  }

  @Provide
  Arbitrary<Values> rows() {
    return Arbitraries.of(Kind.class).list().ofMaxSize(6).flatMap(kinds -> {
      List<Arbitrary<Object>> cols = new ArrayList<>();
      for (Kind k : kinds) {
        cols.add(valueOf(k).injectNull(0.1));
      }
      if (cols.isEmpty()) {
        return Arbitraries.just(new Values(kinds, List.of()));
      }
      return Combinators.combine(cols).as(vs -> new Values(kinds, vs));
    });
  }

  private static Arbitrary<Object> valueOf(Kind kind) {
    return switch (kind) {
      case INT64, UINT64 -> Arbitraries.oneOf(Arbitraries.longs(),
          Arbitraries.of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE)).map(x -> (Object) x);
      case DOUBLE -> Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.longs().map(Double::longBitsToDouble),
          Arbitraries.of(-0.0, Double.NaN, Double.NEGATIVE_INFINITY)).map(x -> (Object) x);
      case BOOLEAN -> Arbitraries.of(true, false).map(x -> (Object) x);
      case STRING -> Arbitraries.strings().all().ofMaxLength(20)
          .filter(s -> s.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF)).map(x -> (Object) x);
      case BYTES -> Arbitraries.bytes().array(byte[].class).ofMaxSize(300).map(x -> (Object) x);
    };
  }
}
