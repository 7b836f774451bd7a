package io.epochal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class CodecProperties {

  record Banner(String id, long shows) {
  }

  private final Codec<Object> kryo = Codecs.kryo(Banner.class);

  @Property
  void longsRoundTrip(@ForAll long v) {
    assertEquals(v, Codecs.longs().decode(Codecs.longs().encode(v)));
    assertEquals(v, kryo.decode(kryo.encode(v)));
  }

  @Property
  void nonNegativeLongsSortLikeTheirBytes(@ForAll long a, @ForAll long b) {
    long x = a & Long.MAX_VALUE;
    long y = b & Long.MAX_VALUE;
    int byBytes = java.util.Arrays.compareUnsigned(Codecs.longs().encode(x), Codecs.longs().encode(y));
    assertEquals(Integer.signum(Long.compare(x, y)), Integer.signum(byBytes));
  }

  @Property
  void stringsRoundTripOrAreRefused(@ForAll @Size(max = 200) String s) {
    boolean valid = new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
    if (valid) {
      assertEquals(s, Codecs.strings().decode(Codecs.strings().encode(s)));
    } else {
      assertThrows(CodecException.class, () -> Codecs.strings().encode(s));
    }
    assertEquals(s, kryo.decode(kryo.encode(s)));
  }

  @Property
  void bytesRoundTrip(@ForAll @Size(max = 200) byte[] b) {
    assertArrayEquals(b, Codecs.bytes().decode(Codecs.bytes().encode(b)));
    assertArrayEquals(b, (byte[]) kryo.decode(kryo.encode(b)));
  }

  @Property
  void listsOfLongsRoundTrip(@ForAll @Size(max = 100) List<Long> list) {
    ArrayList<Long> value = new ArrayList<>(list);
    assertEquals(value, kryo.decode(kryo.encode(value)));
    assertEquals(List.copyOf(value), kryo.decode(kryo.encode(List.copyOf(value))));
  }

  @Property
  void listsOfStringsRoundTrip(@ForAll @Size(max = 50) List<@Size(max = 40) String> list) {
    ArrayList<String> value = new ArrayList<>(list);
    assertEquals(value, kryo.decode(kryo.encode(value)));
  }

  @Property
  void listsOfRecordsRoundTrip(@ForAll("banners") List<Banner> list) {
    ArrayList<Banner> value = new ArrayList<>(list);
    assertEquals(value, kryo.decode(kryo.encode(value)));
  }

  @Provide
  Arbitrary<List<Banner>> banners() {
    Arbitrary<Banner> banner = Combinators.combine(Arbitraries.strings().ofMaxLength(30), Arbitraries.longs())
        .as(Banner::new);
    return banner.list().ofMaxSize(30);
  }
}
