package io.epochal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class CodecsTest {

  record Banner(String id, long shows) {
  }

  record Campaign(String name, List<Banner> banners, Map<String, Long> budget) {
  }

  record Unregistered(int x) {
  }

  record Holder(Object payload) {
  }

  record Node(int value, Node next) {
  }

  enum Color { RED, GREEN }

  // --- longs ------------------------------------------------------------------------------------------------------

  @Test
  void shouldRoundTripLongs() {
    Codec<Long> c = Codecs.longs();
    for (long v : new long[] {0, 1, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L}) {
      assertEquals(v, c.decode(c.encode(v)));
    }
    assertEquals("long-be:v1", c.id());
  }

  @Test
  void shouldEncodeLongsAsEightBytesBigEndian() {
    assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, Codecs.longs().encode(0x0102030405060708L));
    assertArrayEquals(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}, Codecs.longs().encode(-1L));
  }

  @Test
  void shouldRejectLongsOfWrongLength() {
    assertThrows(CodecException.class, () -> Codecs.longs().decode(new byte[7]));
    assertThrows(CodecException.class, () -> Codecs.longs().decode(new byte[9]));
    assertThrows(CodecException.class, () -> Codecs.longs().decode(new byte[0]));
  }

  // --- strings ----------------------------------------------------------------------------------------------------

  @Test
  void shouldRoundTripStringsAsUtf8() {
    Codec<String> c = Codecs.strings();
    for (String s : List.of("", "abc", "h\u00e9llo", "\u043a\u043b\u044e\u0447", "\uD834\uDD1E", "a\0b", "\uFFFD")) {
      assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), c.encode(s));
      assertEquals(s, c.decode(c.encode(s)));
    }
    assertEquals("utf8:v1", c.id());
  }

  @Test
  void shouldRejectMalformedUtf8() {
    assertThrows(CodecException.class, () -> Codecs.strings().decode(new byte[] {(byte) 0xC3}));
    assertThrows(CodecException.class, () -> Codecs.strings().decode(new byte[] {'a', (byte) 0xFF, 'b'}));
  }

  @Test
  void shouldRejectUnpairedSurrogates() {
    assertThrows(CodecException.class, () -> Codecs.strings().encode("x\uD834"));
    assertThrows(CodecException.class, () -> Codecs.strings().encode("\uDD1Ex"));
  }

  // --- bytes ------------------------------------------------------------------------------------------------------

  @Test
  void shouldRoundTripBytesAsCopies() {
    Codec<byte[]> c = Codecs.bytes();
    byte[] in = {1, 2, 3};
    byte[] encoded = c.encode(in);
    assertArrayEquals(in, encoded);
    assertNotSame(in, encoded);
    byte[] decoded = c.decode(encoded);
    assertArrayEquals(in, decoded);
    assertNotSame(encoded, decoded);
    assertArrayEquals(new byte[0], c.decode(c.encode(new byte[0])));
    assertEquals("bytes:v1", c.id());
  }

  // --- nulls ------------------------------------------------------------------------------------------------------

  @Test
  void shouldRejectNullsEverywhere() {
    List<Codec<?>> all = List.of(Codecs.longs(), Codecs.strings(), Codecs.bytes(), Codecs.kryo(Banner.class));
    for (Codec<?> c : all) {
      @SuppressWarnings("unchecked")
      Codec<Object> o = (Codec<Object>) c;
      assertThrows(NullPointerException.class, () -> o.encode(null), c.id());
      assertThrows(NullPointerException.class, () -> o.decode(null), c.id());
    }
  }

  // --- kryo -------------------------------------------------------------------------------------------------------

  @Test
  void shouldRoundTripRecordWithKryo() {
    Codec<Banner> c = Codecs.kryo(Banner.class);
    Banner b = new Banner("banner-1", 12345L);
    assertEquals(b, c.decode(c.encode(b)));
    assertEquals("kryo:v1:" + Banner.class.getName(), c.id());
  }

  @Test
  void shouldKeepKryoFormatStable() {
    // Class id 100 is written as varint 102, then "b1" as Kryo ASCII (last byte | 0x80), then 5 as zigzag varlong.
    // Changing these bytes breaks every stored state: bump the "kryo:v1" id instead.
    byte[] encoded = Codecs.<Banner>kryo(Banner.class).encode(new Banner("b1", 5));
    assertArrayEquals(new byte[] {102, 'b', (byte) ('1' | 0x80), 10}, encoded);
    assertArrayEquals(encoded, Codecs.<Banner>kryo(Banner.class).encode(new Banner("b1", 5)));
    assertEquals(new Banner("b1", 5), Codecs.<Banner>kryo(Banner.class).decode(encoded));
  }

  @Test
  void shouldRoundTripNestedRecordsAndJdkTypes() {
    Codec<Object> c = Codecs.kryo(Banner.class, Campaign.class, Color.class);
    Map<String, Long> budget = new HashMap<>();
    budget.put("day", 100L);
    budget.put("week", 700L);
    List<Object> values = List.of(
        new Campaign("c", new ArrayList<>(List.of(new Banner("a", 1), new Banner("b", 2))), budget),
        new Campaign("immutable", List.of(new Banner("x", 3)), Map.of("k", 1L)),
        "text", 7L, 7, 3.5, true, (short) 2, (byte) 1, 'c', 1.5f,
        new long[] {1, 2, 3}, new byte[] {4, 5}, new int[] {6}, new double[] {0.5}, new String[] {"s", null},
        new Object[] {1L, "two", null},
        new ArrayList<>(List.of(1L, 2L)), new HashMap<>(budget), new LinkedHashMap<>(budget), new TreeMap<>(budget),
        List.of(), List.of(1), List.of(1, 2, 3), Set.of(), Set.of("a"), Set.of("a", "b", "c"),
        Map.of(), Map.of("a", 1), Map.of("a", 1, "b", 2),
        Stream.of("x", null).toList(), Collections.emptyList(), Collections.singletonList("one"),
        Collections.emptyMap(), Collections.singletonMap("k", "v"),
        BigInteger.TEN.pow(30), new BigDecimal("12.345"), UUID.randomUUID(), Instant.ofEpochSecond(1, 2),
        Duration.ofMillis(1500), LocalDate.of(2024, 2, 29), Color.GREEN);
    for (Object v : values) {
      Object back = c.decode(c.encode(v));
      if (v.getClass().isArray()) {
        assertTrue(Arrays.deepEquals(new Object[] {v}, new Object[] {back}), v.getClass().getName());
      } else {
        assertEquals(v, back, v.getClass().getName());
      }
    }
  }

  @Test
  void shouldIgnorePreRegisteredJdkTypesInRegistrationList() {
    Codec<Object> c = Codecs.kryo(Long.class, String.class, long.class, Banner.class);
    assertEquals("kryo:v1:" + Banner.class.getName(), c.id());
    assertArrayEquals(Codecs.kryo(Banner.class).encode(new Banner("a", 1)), c.encode(new Banner("a", 1)));
  }

  @Test
  void shouldRejectDuplicateRegistration() {
    assertThrows(IllegalArgumentException.class, () -> Codecs.kryo(Banner.class, Banner.class));
    assertThrows(NullPointerException.class, () -> Codecs.kryo(Banner.class, null));
  }

  @Test
  void shouldRejectClassKryoCannotSerializeAtConstruction() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Codecs.kryo(java.util.concurrent.atomic.LongAdder.class));
    assertTrue(e.getMessage().contains("java.util.concurrent.atomic.LongAdder"), e.getMessage());
  }

  @Test
  void shouldExplainUnregisteredClass() {
    Codec<Object> c = Codecs.kryo(Banner.class, Holder.class);
    CodecException e = assertThrows(CodecException.class, () -> c.encode(new Unregistered(1)));
    assertTrue(e.getMessage().contains(Unregistered.class.getName()), e.getMessage());
    assertTrue(e.getMessage().contains("Codecs.kryo"), e.getMessage());
    CodecException nested = assertThrows(CodecException.class, () -> c.encode(new Holder(new Unregistered(2))));
    assertTrue(nested.getMessage().contains(Unregistered.class.getName()), nested.getMessage());
    // The codec stays usable after a failure.
    assertEquals(new Banner("a", 1), c.decode(c.encode(new Banner("a", 1))));
  }

  @Test
  void shouldRefuseBytesOfAnotherRegistrationList() {
    byte[] banner = Codecs.<Banner>kryo(Banner.class).encode(new Banner("a", 1));
    // Same id 100 now means Color: the bytes must not come back as a wrong value silently.
    Codec<Object> other = Codecs.kryo(Color.class);
    assertThrows(CodecException.class, () -> other.decode(banner));
  }

  @Test
  void shouldRejectGarbageBytes() {
    Codec<Banner> c = Codecs.kryo(Banner.class);
    List<byte[]> garbage = List.of(
        new byte[] {},
        new byte[] {0},                                               // encodes null
        new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}, // unknown class id
        new byte[] {1, 'x'},                                          // class by name: not allowed
        new byte[] {(byte) 0x90, 0x01},                               // id 142 unregistered
        "not kryo at all".getBytes(StandardCharsets.UTF_8),
        new byte[] {16, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}, // long[] of 2^31-2 elements
        new byte[] {12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}, // byte[] of 2^31-2 elements
        new byte[] {3, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},  // UTF-8 string of 2^31-2 chars
        new byte[] {20, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}, // String[] of 2^31-2
        new byte[] {21, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}, // Object[] of 2^31-2
        new byte[] {22, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}); // ArrayList of 2^31-1
    for (byte[] g : garbage) {
      assertThrows(CodecException.class, () -> c.decode(g), () -> Arrays.toString(g));
    }
  }

  @Test
  void shouldThrowOnlyCodecExceptionForRandomBytes() {
    Codec<Object> c = Codecs.kryo(Banner.class, Campaign.class, Holder.class, Color.class);
    byte[] valid = c.encode(new Campaign("c", List.of(new Banner("a", 1)), Map.of("k", 2L)));
    Random random = new Random(42);
    int[] rejected = new int[2]; // random bytes, valid bytes with one byte changed
    for (int i = 0; i < 10_000; i++) {
      byte[] g;
      if (i % 2 == 0) {
        g = new byte[random.nextInt(64)];
        random.nextBytes(g);
      } else {
        g = valid.clone();
        g[random.nextInt(g.length)] = (byte) random.nextInt(256);
      }
      Object decoded;
      try {
        decoded = c.decode(g);
      } catch (CodecException e) {
        assertFalse(e.retryable(), "undecodable bytes stay undecodable: " + e);
        rejected[i % 2]++;
        continue;
      }
      // accepted: only a value the codec can write again (never a half-read object or null)
      assertNotNull(decoded, () -> Arrays.toString(g));
      assertEquals(decoded.getClass(), c.decode(c.encode(decoded)).getClass(), () -> Arrays.toString(g));
    }
    // the codec must actually reject: nearly all random bytes, and most single-byte changes of valid bytes
    assertTrue(rejected[0] >= 4_900, () -> rejected[0] + " of 5,000 random byte strings rejected");
    assertTrue(rejected[1] >= 2_500, () -> rejected[1] + " of 5,000 changed valid encodings rejected");
  }

  @Test
  void shouldRejectTruncatedBytes() {
    Codec<Object> c = Codecs.kryo(Banner.class, Campaign.class);
    for (Object v : List.of(new Banner("banner-1", 1L << 40),
        new Campaign("c", List.of(new Banner("a", 1)), Map.of("k", 2L)), "string", 123456789L, new long[] {1, 2})) {
      byte[] full = c.encode(v);
      for (int n = 0; n < full.length; n++) {
        byte[] prefix = Arrays.copyOf(full, n);
        assertThrows(CodecException.class, () -> c.decode(prefix), v + " cut at " + n);
      }
    }
  }

  @Test
  void shouldRejectTrailingBytes() {
    Codec<Banner> c = Codecs.kryo(Banner.class);
    byte[] full = c.encode(new Banner("a", 1));
    byte[] longer = Arrays.copyOf(full, full.length + 1);
    CodecException e = assertThrows(CodecException.class, () -> c.decode(longer));
    assertTrue(e.getMessage().contains("1 unexpected bytes"), e.getMessage());
  }

  @Test
  void shouldRejectTooDeepGraphs() {
    Codec<Node> c = Codecs.kryo(Node.class);
    Node shallow = null;
    for (int i = 0; i < 100; i++) {
      shallow = new Node(i, shallow);
    }
    assertEquals(shallow, c.decode(c.encode(shallow)));
    Node deep = null;
    for (int i = 0; i < 5_000; i++) {
      deep = new Node(i, deep);
    }
    Node tooDeep = deep;
    assertThrows(CodecException.class, () -> c.encode(tooDeep));
  }

  @Test
  void shouldBeCorrectUnderConcurrentUse() throws Exception {
    Codec<Banner> c = Codecs.kryo(Banner.class);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          start.await();
          int ok = 0;
          for (int i = 0; i < 5_000; i++) {
            Banner b = new Banner("t" + thread + "-" + i + "-".repeat(i % 50), (long) thread << 32 | i);
            Banner back = c.decode(c.encode(b));
            if (!b.equals(back)) {
              throw new AssertionError("thread " + thread + " got " + back + " for " + b);
            }
            ok++;
          }
          return ok;
        }));
      }
      start.countDown();
      for (Future<Integer> f : results) {
        assertEquals(5_000, f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
