package io.epochal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FarmHashTest {

  /**
   * Fingerprint64 of {@code byte[n]} with {@code b[i] = (byte) (i * 131 + 17)}, for n = 0..200 (covers the 0-16,
   * 17-32, 33-64 and >64 branches, including bytes with the high bit set). Produced by an independent
   * implementation: Guava 33.4.6 {@code Hashing.farmHashFingerprint64().hashBytes(b).asLong()}.
   */
  private static final long[] GUAVA_BY_LENGTH = {
      -7286425919675154353L, -4474225918658307609L, -1967099861201953744L,
      8156813543280962808L, -8870087248999262534L, 3068887552320518606L,
      1115421402332938103L, -1812680393321648252L, 1668742482406966573L,
      6435977205899572716L, -2524085107194640068L, -3772565828508810847L,
      4749415300104569070L, 7084424717352979439L, 9064335937568594466L,
      7539679315945763698L, -3887423296752916437L, 7327678621829093979L,
      1978506630805113767L, 482476761725189069L, -3715454564226375836L,
      7286614690566783808L, -2298962787401392727L, -7443316239211772657L,
      5405474936806680719L, -4960778748605825819L, -4179681682466878935L,
      8302208456382229577L, 2147868379404306257L, 7924087173700904172L,
      -5159668621778731938L, 2309315602388385704L, 6526961488314481880L,
      7345334254565522149L, -2789034206540318814L, 7337330719090250066L,
      -1119722239093841809L, 8803273759346540428L, -8653180248310214439L,
      461618258631708057L, -3531333806228579000L, -3094986941898232026L,
      3237628565753756447L, -9188586803575509342L, 766672511585370811L,
      -8457061300959040587L, 1995633718471234475L, -4578077106945346401L,
      -2113164743675240855L, 3443752725642007059L, -697425509432737946L,
      676748734353107231L, 3080491807810589806L, 5135495017062475820L,
      2111598751805983843L, 1163848103131112644L, 3647877258264427359L,
      -6029591875126264985L, -4542135856543824033L, 735340809200903099L,
      2652970277438102639L, 4902826555786733839L, -4789714797025403370L,
      3376395831717063301L, -2320843887889915126L, 39735745836032512L,
      2399062697578635671L, 4548235164141703941L, -2274358851828466105L,
      -1761281092162899074L, -3338785807261426660L, -4526754109286911053L,
      6415603152047802654L, -2631999755484187706L, 4554047864168503732L,
      3502322174693699834L, -3592174777691487224L, 5822718693286917613L,
      -4542560062498072272L, 4574230396883989922L, 6119981941173320022L,
      -9199947789801496308L, -3908127577657905314L, 8212227967282888275L,
      -6910390958749524841L, -1189071520397994175L, -2249047649147098755L,
      4369206304921869990L, -7406277391920004187L, -3957181373364893730L,
      -2604666397853873185L, 6400224888074863073L, 4402166336887968252L,
      -3503179319872621316L, 320928595248747721L, -4924429399503446416L,
      -7817354848254256635L, -6163371718767295573L, -3003705907550718979L,
      8406342371668028939L, -6898620911749375564L, 7489745882219137300L,
      714044994394263927L, -6248329374457871278L, 1375823740889701018L,
      -313372794216837202L, 5630013130713465159L, 3887300198338515976L,
      -2193299755745059137L, 3164220211049603816L, 4682418079114973279L,
      5856104906551385614L, 8859866841912381794L, -7785698680088854578L,
      -7471867104012681183L, 1419714296075470205L, 8690633117744241973L,
      4541467611170783918L, 5586954209519818710L, 4177585275724078799L,
      4496487306420870028L, 2741445139117423362L, -3275361593448581788L,
      -2648931535065810133L, -8150069301480707077L, -7408621951541873656L,
      -4939654716412855456L, 242296305713591864L, 3159622443159239423L,
      -8054479233642375512L, -3287514636310749031L, -7224222384900070085L,
      5340705646759468708L, -496816435672124928L, 2314531717177780025L,
      8674184444240709057L, -7309555304427997383L, 5689642115371611416L,
      7213468320089178499L, 8215124946642971176L, 8342451125445128231L,
      -6236510638494787474L, -3010855199400793283L, 6382217843819182254L,
      -627911133501605821L, 4207009060651160876L, 6230496293495342255L,
      5255022148390966734L, -2502972785688182737L, 1231068179116165310L,
      5919739231820125225L, -8314019266855831658L, 4947593489302641685L,
      -8211530927837439760L, 3686123283211443220L, 7940288954900742764L,
      1388139231952945342L, 2538578285297258909L, 8840796794429680083L,
      4062014509246684635L, 6275735719979273298L, 7422893217354284055L,
      3656629420022791981L, -6176413135718460251L, 3865918113066945688L,
      -9051729118383823722L, 5748329972374572572L, 5721182857627829264L,
      -5092254350128229424L, 8552823156658525662L, 3285263676152987123L,
      -1623637027892076391L, 4917217441013268888L, -4951074614768944100L,
      7380481358605394716L, 3388718881448220686L, 8064074647169514700L,
      6305960116685276133L, 2236247514018774260L, 875113176090122691L,
      4393484145606402392L, -6613832221691851867L, -1700006188013004930L,
      -5545410169937575904L, -6620011832509464486L, -9204230125603649688L,
      8988338852293733191L, -6205980536832314409L, -8678785684777051205L,
      882420842840713587L, 3368125415274109796L, -8891883552727427202L,
      -3805407802005811088L, -8945455110862107384L, -390223549645702114L,
      4105415043545196303L, 3196939915954773312L, -8450192423281923359L,
      1498957909200887316L, 1352095112376778309L, -1069677925132592540L
  };

  /**
   * {@code acc = acc * 31 + fp} over n = 0..200 of Fingerprint64 of the ASCII string of length n with
   * {@code s[i] = 'a' + (i * 7 + 3) % 26}; reference values from Guava 33.4.6 {@code hashString(s, UTF_8)}.
   */
  private static final long GUAVA_ASCII_STRINGS_CHECKSUM = -3797578537150567956L;

  private static byte[] patternBytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 131 + 17);
    }
    return b;
  }

  private static String asciiString(int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) ('a' + (i * 7 + 3) % 26));
    }
    return sb.toString();
  }

  // --- vectors from YTsaurus' own tests ---------------------------------------------------------------------------

  @Test
  void shouldMatchYtsaurusForUnsigned456() {
    assertEquals(2044001940267648219L, FarmHash.farmHash(456L));
    assertEquals(2044001940267648219L, FarmHash.farmHash((Object) 456L));
  }

  @Test
  void shouldMatchYtsaurusForAbc() {
    assertEquals(0x7b15151e28709746L, FarmHash.farmHash("abc"));
    assertEquals(0x7b15151e28709746L, FarmHash.farmHash((Object) "abc"));
  }

  @Test
  void shouldMatchYtsaurusForEmptyString() {
    assertEquals(0xfcc22541f5657d35L, FarmHash.farmHash(""));
    assertEquals(0xfcc22541f5657d35L, FarmHash.farmHash((Object) ""));
  }

  @Test
  void shouldMatchYtsaurusForNull() {
    assertEquals(0x2e03bcb5a0233a41L, FarmHash.farmHash((Object) null));
    assertEquals(0x2e03bcb5a0233a41L, FarmHash.farmHash((String) null));
  }

  @Test
  void shouldMatchYtsaurusForMinusOneSignedAndUnsigned() {
    long maxUnsigned = Long.parseUnsignedLong("18446744073709551615");
    assertEquals(-1L, maxUnsigned);
    assertEquals(0x62f280995c3dea58L, FarmHash.farmHash(-1L));
    assertEquals(0x62f280995c3dea58L, FarmHash.farmHash((Object) (-1)));
    assertEquals(0x62f280995c3dea58L, FarmHash.farmHash(maxUnsigned));
  }

  @Test
  void shouldMatchYtsaurusForStringAndUnsigned() {
    assertEquals(0x269c2b99970a5b3dL, FarmHash.farmHash("alpha", 7L));
  }

  @Test
  void shouldMatchYtsaurusForNullAndUnsigned() {
    assertEquals(0xf03df45b1975b535L, FarmHash.farmHash(null, 7L));
  }

  @Test
  void shouldMatchYtsaurusForMixedRow() {
    assertEquals(0x5f90424776524127L, FarmHash.farmHash(-7, 11L, true, "xy"));
    assertEquals(0x5f90424776524127L, FarmHash.farmHash(-7L, 11, Boolean.TRUE, "xy".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldMatchYtsaurusForEmbeddedZeroByte() {
    assertEquals(0x0706e84ffa9edd01L, FarmHash.farmHash("a\0b"));
  }

  @Test
  void shouldMatchYtsaurusForMessageKey() {
    assertEquals(0x463ef428a4ff1c4dL, FarmHash.farmHash("msg-17"));
  }

  // --- Fingerprint64 against an independent reference ------------------------------------------------------------

  @Test
  void shouldFingerprintAlphabetLikeGuava() {
    assertEquals(-2427165924636348523L, FarmHash.fingerprint64("alphabet".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldMatchReferenceForEveryLengthUpTo200() {
    assertEquals(201, GUAVA_BY_LENGTH.length);
    for (int n = 0; n <= 200; n++) {
      assertEquals(GUAVA_BY_LENGTH[n], FarmHash.fingerprint64(patternBytes(n)), "length " + n);
    }
  }

  @Test
  void shouldMatchReferenceForSlicesAtEveryOffsetAndLength() {
    byte[] big = new byte[210];
    for (int off = 0; off < 9; off++) {
      for (int n = 0; n <= 200; n++) {
        System.arraycopy(patternBytes(n), 0, big, off, n);
        assertEquals(GUAVA_BY_LENGTH[n], FarmHash.fingerprint64(big, off, n), "offset " + off + " length " + n);
      }
    }
  }

  @Test
  void shouldMatchReferenceForAsciiStringsOfEveryLengthUpTo200() {
    long acc = 0;
    for (int n = 0; n <= 200; n++) {
      String s = asciiString(n);
      long fp = FarmHash.fingerprint64(s.getBytes(StandardCharsets.UTF_8));
      acc = acc * 31 + fp;
      assertEquals(FarmHash.farmHash((Object) s), FarmHash.farmHash(s), "length " + n);
    }
    assertEquals(GUAVA_ASCII_STRINGS_CHECKSUM, acc);
  }

  @Test
  void shouldHashStringsAsUtf8() {
    String s = "h\u00e9llo w\u00f6rld \u2713 \uD834\uDD1E \u043a\u043b\u044e\u0447";
    assertEquals(-6849349694513411402L, FarmHash.fingerprint64(s.getBytes(StandardCharsets.UTF_8)));
    assertEquals(FarmHash.farmHash((Object) s.getBytes(StandardCharsets.UTF_8)), FarmHash.farmHash(s));
  }

  @Test
  void shouldReturnK2ForEmptyInput() {
    assertEquals(0x9ae16a3b2f90404fL, FarmHash.fingerprint64(new byte[0]));
  }

  // --- value rules ------------------------------------------------------------------------------------------------

  @Test
  void shouldFingerprintIntegralTypesAsInt64() {
    long expected = FarmHash.farmHash(-5L);
    assertEquals(expected, FarmHash.farmHash((Object) (-5)));
    assertEquals(expected, FarmHash.farmHash((Object) (short) -5));
    assertEquals(expected, FarmHash.farmHash((Object) (byte) -5));
  }

  @Test
  void shouldFingerprintDoubleByRawBits() {
    double d = 3.25;
    long bits = Double.doubleToRawLongBits(d);
    assertEquals(FarmHash.farmHash(bits), FarmHash.farmHash((Object) d));
    assertEquals(FarmHash.farmHash(0L), FarmHash.farmHash((Object) 0.0));
  }

  @Test
  void shouldFingerprintBooleansAsZeroAndOne() {
    assertEquals(FarmHash.farmHash(1L), FarmHash.farmHash((Object) true));
    assertEquals(FarmHash.farmHash(0L), FarmHash.farmHash((Object) false));
    assertEquals(FarmHash.farmHash(0L), FarmHash.farmHash((Object) null));
  }

  @Test
  void shouldMixCountIntoEmptyRow() {
    assertEquals(0xdeadc0deL, FarmHash.farmHash());
  }

  @Test
  void shouldRejectUnsupportedTypeNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FarmHash.farmHash(1.5f));
    assertTrue(e.getMessage().contains("java.lang.Float"), e.getMessage());
    IllegalArgumentException e2 =
        assertThrows(IllegalArgumentException.class, () -> FarmHash.farmHash("ok", new StringBuilder("x")));
    assertTrue(e2.getMessage().contains("java.lang.StringBuilder"), e2.getMessage());
  }

  @Test
  void shouldRejectNullVarargsArray() {
    assertThrows(NullPointerException.class, () -> FarmHash.farmHash((Object[]) null));
  }

  @Test
  void shouldRejectOutOfRangeSlices() {
    byte[] b = new byte[10];
    assertThrows(IndexOutOfBoundsException.class, () -> FarmHash.fingerprint64(b, 5, 6));
    assertThrows(IndexOutOfBoundsException.class, () -> FarmHash.fingerprint64(b, -1, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> FarmHash.fingerprint64(b, 0, -1));
  }

  @Test
  void shouldComputeFingerprintOfUint64() {
    long k = 0x9ddfea08eb382d69L;
    long x = 456L;
    long b = x * k;
    b ^= b >>> 44;
    b *= k;
    b ^= b >>> 41;
    b *= k;
    assertEquals(b, FarmHash.fingerprint(456L));
    assertEquals(0L, FarmHash.fingerprint(0L));
  }

  // --- partitions -------------------------------------------------------------------------------------------------

  @Test
  void shouldPartitionByContiguousHashRanges() {
    // n equal ranges of the unsigned 64-bit space: partition = floor(hash * n / 2^64)
    assertEquals(0, FarmHash.partition(0L, 10));
    assertEquals(0, FarmHash.partition(-1L, 1));
    // -1L is 2^64 - 1 unsigned, the last hash: the last partition (a signed product would give -1)
    assertEquals(9, FarmHash.partition(-1L, 10));
    assertEquals(Integer.MAX_VALUE - 1, FarmHash.partition(-1L, Integer.MAX_VALUE));
    // 2^63 (Long.MIN_VALUE unsigned) is the middle: partition n/2 for even n
    assertEquals(2, FarmHash.partition(Long.MIN_VALUE, 4));
    assertEquals(1, FarmHash.partition(Long.MIN_VALUE - 1, 4)); // 2^63 - 1
    // boundaries of 3 partitions: ceil(2^64 / 3) = 0x5555555555555556
    assertEquals(0, FarmHash.partition(0x5555555555555555L, 3));
    assertEquals(1, FarmHash.partition(0x5555555555555556L, 3));
    assertEquals(1, FarmHash.partition(0xAAAAAAAAAAAAAAAAL, 3));
    assertEquals(2, FarmHash.partition(0xAAAAAAAAAAAAAAABL, 3));
    long h = FarmHash.farmHash("msg-17");
    assertEquals(new java.math.BigInteger(Long.toUnsignedString(h)).multiply(java.math.BigInteger.valueOf(7))
        .shiftRight(64).intValueExact(), FarmHash.partition(h, 7));
  }

  @Test
  void shouldKeepPartitionsInRangeForNegativeHashes() {
    for (long h = Long.MIN_VALUE; h < Long.MIN_VALUE + 1000; h++) {
      int p = FarmHash.partition(h, 13);
      assertTrue(p >= 0 && p < 13);
    }
  }

  @Test
  void shouldRejectNonPositivePartitionCount() {
    assertThrows(IllegalArgumentException.class, () -> FarmHash.partition(1L, 0));
    assertThrows(IllegalArgumentException.class, () -> FarmHash.partition(1L, -3));
  }
}
