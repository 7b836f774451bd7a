package io.epochal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class FarmHashProperties {

  @Property
  void stringOverloadEqualsVarargsForm(@ForAll @Size(max = 300) String s) {
    assertEquals(FarmHash.farmHash(new Object[] {s}), FarmHash.farmHash(s));
  }

  @Property
  void stringIsHashedAsItsUtf8Bytes(@ForAll @Size(max = 300) String s) {
    assertEquals(FarmHash.farmHash((Object) s.getBytes(StandardCharsets.UTF_8)), FarmHash.farmHash(s));
  }

  @Property
  void longOverloadEqualsVarargsForm(@ForAll long x) {
    assertEquals(FarmHash.farmHash(new Object[] {x}), FarmHash.farmHash(x));
  }

  @Property
  void intIsHashedAsInt64(@ForAll int x) {
    assertEquals(FarmHash.farmHash((long) x), FarmHash.farmHash((Object) x));
  }

  @Property
  void sliceEqualsCopiedSlice(@ForAll @Size(max = 400) byte[] bytes,
      @ForAll @IntRange(min = 0, max = 400) int a, @ForAll @IntRange(min = 0, max = 400) int b) {
    int from = a % (bytes.length + 1);
    int to = from + b % (bytes.length - from + 1);
    assertEquals(FarmHash.fingerprint64(Arrays.copyOfRange(bytes, from, to)),
        FarmHash.fingerprint64(bytes, from, to - from));
  }

  @Property
  void fingerprintDoesNotModifyInput(@ForAll @Size(max = 200) byte[] bytes) {
    byte[] copy = bytes.clone();
    FarmHash.fingerprint64(bytes);
    assertTrue(Arrays.equals(copy, bytes));
  }

  @Property
  void partitionIsTheHashRangeOfEqualWidthInRange(@ForAll long hash, @ForAll @IntRange(min = 1) int n) {
    int p = FarmHash.partition(hash, n);
    assertTrue(p >= 0 && p < n);
    BigInteger expected = new BigInteger(Long.toUnsignedString(hash)).multiply(BigInteger.valueOf(n)).shiftRight(64);
    assertEquals(expected.intValueExact(), p);
  }

  @Property
  void partitionsAreContiguous(@ForAll long a, @ForAll long b, @ForAll @IntRange(min = 1, max = 64) int n) {
    // unsigned a <= b implies partition(a) <= partition(b): each partition is one range of the hash space
    long lo = Long.compareUnsigned(a, b) <= 0 ? a : b;
    long hi = lo == a ? b : a;
    assertTrue(FarmHash.partition(lo, n) <= FarmHash.partition(hi, n));
  }
}
