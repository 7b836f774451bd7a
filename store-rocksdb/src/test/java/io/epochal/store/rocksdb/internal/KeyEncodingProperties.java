package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.rocksdb.internal.KeyEncoding.Kind;
import io.epochal.testing.TriesScale;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The key encoding's byte order equals the typed (YTsaurus) lexicographic order, and it round-trips. */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class KeyEncodingProperties {

  /** A schema (kinds) and some keys of it. */
  record Keys(List<Kind> kinds, List<Object[]> keys) {
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(kinds.toString()).append(':');
      for (Object[] k : keys) {
        sb.append(' ').append(Arrays.deepToString(k));
      }
      return sb.toString();
    }
  }

  @Property(tries = 500)
  void shouldPreserveTypedOrderInUnsignedByteOrder(@ForAll("keys") Keys keys) {
    List<Object[]> ks = keys.keys();
    for (Object[] a : ks) {
      for (Object[] b : ks) {
        int typed = Integer.signum(KeyEncoding.compareTyped(keys.kinds(), a, b));
        int bytes = Integer.signum(Arrays.compareUnsigned(KeyEncoding.encode(keys.kinds(), a),
            KeyEncoding.encode(keys.kinds(), b)));
        assertEquals(typed, bytes, () -> Arrays.deepToString(a) + " vs " + Arrays.deepToString(b));
      }
    }
  }

  @Property(tries = 200)
  void shouldSortLikeTheTypedComparator(@ForAll("keys") Keys keys) {
    List<Object[]> byTyped = new ArrayList<>(keys.keys());
    byTyped.sort((a, b) -> KeyEncoding.compareTyped(keys.kinds(), a, b));
    List<byte[]> byBytes = new ArrayList<>();
    for (Object[] k : keys.keys()) {
      byBytes.add(KeyEncoding.encode(keys.kinds(), k));
    }
    byBytes.sort(Arrays::compareUnsigned);
    for (int i = 0; i < byTyped.size(); i++) {
      assertEquals(0, KeyEncoding.compareTyped(keys.kinds(), byTyped.get(i),
          KeyEncoding.decode(keys.kinds(), byBytes.get(i))));
    }
  }

  @Property(tries = 1000)
  void shouldRoundTrip(@ForAll("keys") Keys keys) {
    for (Object[] k : keys.keys()) {
      Object[] back = KeyEncoding.decode(keys.kinds(), KeyEncoding.encode(keys.kinds(), k));
      assertEquals(0, KeyEncoding.compareTyped(keys.kinds(), k, back));
      assertArrayEquals(KeyEncoding.encode(keys.kinds(), k), KeyEncoding.encode(keys.kinds(), back));
    }
  }

  @Property(tries = 300)
  void shouldRejectTruncatedOrTrailingBytes(@ForAll("keys") Keys keys) {
    byte[] enc = KeyEncoding.encode(keys.kinds(), keys.keys().get(0));
    assertThrows(IllegalArgumentException.class,
        () -> KeyEncoding.decode(keys.kinds(), Arrays.copyOf(enc, enc.length - 1)));
    assertThrows(IllegalArgumentException.class,
        () -> KeyEncoding.decode(keys.kinds(), Arrays.copyOf(enc, enc.length + 1)));
  }

  @Example
  void shouldOrderEdgeCasesOfEachType() {
    assertOrdered(Kind.UINT64, 0L, 1L, Long.MAX_VALUE, Long.MIN_VALUE, -1L);
    assertOrdered(Kind.INT64, Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE);
    assertOrdered(Kind.DOUBLE, Double.NEGATIVE_INFINITY, -1.5, -Double.MIN_VALUE, -0.0, 0.0, Double.MIN_VALUE, 2.0,
        Double.POSITIVE_INFINITY, Double.NaN);
    assertOrdered(Kind.BOOLEAN, false, true);
    assertOrdered(Kind.STRING, "", "\0", "\0\0", "\0a", "a", "a\0", "a\0\0", "a\u0001", "ab", "\u00ff", "\uffff",
        new String(Character.toChars(0x1F600)));
    assertOrdered(Kind.BYTES, new byte[0], new byte[] {0}, new byte[] {0, 0}, new byte[] {0, (byte) 0xff},
        new byte[] {1}, new byte[] {(byte) 0xff}, new byte[] {(byte) 0xff, 0});
  }

  @Example
  void shouldSortNullBeforeEveryValue() {
    for (Kind kind : Kind.values()) {
      Object[] nul = {null};
      Object[] min = {switch (kind) {
        case INT64 -> Long.MIN_VALUE;
        case UINT64 -> 0L;
        case DOUBLE -> Double.NEGATIVE_INFINITY;
        case BOOLEAN -> false;
        case STRING -> "";
        case BYTES -> new byte[0];
      }};
      assertTrue(Arrays.compareUnsigned(KeyEncoding.encode(List.of(kind), nul),
          KeyEncoding.encode(List.of(kind), min)) < 0, kind::toString);
    }
  }

  private static void assertOrdered(Kind kind, Object... ascending) {
    for (int i = 0; i + 1 < ascending.length; i++) {
      byte[] a = KeyEncoding.encode(List.of(kind), new Object[] {ascending[i]});
      byte[] b = KeyEncoding.encode(List.of(kind), new Object[] {ascending[i + 1]});
      int at = i;
      assertEquals(-1, Integer.signum(Arrays.compareUnsigned(a, b)), () -> kind + " at " + at);
    }
  }

  @Provide
  Arbitrary<Keys> keys() {
    Arbitrary<List<Kind>> kinds = Arbitraries.of(Kind.class).list().ofMinSize(1).ofMaxSize(4);
    return kinds.flatMap(ks -> keyOf(ks).list().ofMinSize(1).ofMaxSize(12).map(list -> new Keys(ks, list)));
  }

  /** Keys drawn from small pools so that equal prefixes (and thus later columns) are compared often. */
  private static Arbitrary<Object[]> keyOf(List<Kind> kinds) {
    List<Arbitrary<Object>> columns = new ArrayList<>();
    for (Kind k : kinds) {
      columns.add(valueOf(k).injectNull(0.05));
    }
    return Combinators.combine(columns).as(List::toArray);
  }

  private static Arbitrary<Object> valueOf(Kind kind) {
    return switch (kind) {
      case INT64, UINT64 -> Arbitraries.oneOf(
          Arbitraries.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 255L, 256L),
          Arbitraries.longs()).map(x -> (Object) x);
      case DOUBLE -> Arbitraries.oneOf(
          Arbitraries.of(0.0, -0.0, 1.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
              Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE),
          Arbitraries.doubles(),
          Arbitraries.longs().map(Double::longBitsToDouble)).map(x -> (Object) x);
      case BOOLEAN -> Arbitraries.of(true, false).map(x -> (Object) x);
      case STRING -> Arbitraries.oneOf(
          Arbitraries.of("", "\0", "a", "a\0", "ab", "\u00e9", "\uffff", "\ud83d\ude00"),
          Arbitraries.strings().withChars('\0', '\u0001', 'a', 'b', '\u00ff', '\uffff').ofMaxLength(6),
          Arbitraries.strings().all().ofMaxLength(8)
              .filter(s -> s.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF)))
          .map(x -> (Object) x);
      case BYTES -> Arbitraries.oneOf(
          Arbitraries.bytes().array(byte[].class).ofMaxSize(8),
          Arbitraries.of((byte) 0, (byte) 1, (byte) 0xff).array(byte[].class).ofMaxSize(5))
          .map(x -> (Object) x);
    };
  }

  @Example
  void shouldKeepKeysDistinctWhenSortedByBytes() {
    // A sanity check that the comparator used above is a total order over the examples.
    List<Object[]> keys = new ArrayList<>(List.of(new Object[] {1L, "b"}, new Object[] {1L, "a"},
        new Object[] {0L, "z"}));
    keys.sort(Comparator.comparing(k -> KeyEncoding.encode(List.of(Kind.UINT64, Kind.STRING), k),
        Arrays::compareUnsigned));
    assertEquals("z", keys.get(0)[1]);
    assertEquals("a", keys.get(1)[1]);
  }
}
