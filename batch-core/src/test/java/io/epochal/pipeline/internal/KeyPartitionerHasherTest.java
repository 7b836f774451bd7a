package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.InvalidRecordException;
import io.epochal.hash.FarmHash;
import io.epochal.pipeline.Bytes;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The allocation-free hasher of groupBy gives exactly the partitions (and errors) of {@link KeyPartitioner}, and both
 * refuse keys without value equality or without a UTF-8 form.
 */
class KeyPartitionerHasherTest {

  @Test
  void stringsHashLikeFarmHash() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    SplittableRandom random = new SplittableRandom(7);
    char[] alphabet = "abcXYZ019 -_/\u00e9\u00ff\u0100\u20ac\ud83d\ude00\u0000\u007f\u0080".toCharArray();
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      int len = random.nextInt(0, i % 100 == 0 ? 300 : 40);
      StringBuilder sb = new StringBuilder(len);
      boolean asciiOnly = random.nextBoolean();
      for (int c = 0; c < len; c++) {
        sb.append(asciiOnly ? (char) random.nextInt(0, 0x80) : alphabet[random.nextInt(alphabet.length)]);
      }
      String s = sb.toString();
      assertEquals(FarmHash.farmHash(s), hasher.hash(s), s);
      boolean encodable = s.codePoints().noneMatch(cp -> cp >= 0xd800 && cp <= 0xdfff);
      for (int partitions : new int[] {1, 2, 3, 4, 7, 64}) {
        if (encodable) {
          assertEquals(KeyPartitioner.partition(s, partitions), hasher.partition(s, partitions), s);
        } else {
          assertThrows(InvalidRecordException.class, () -> KeyPartitioner.partition(s, partitions), s);
          assertThrows(InvalidRecordException.class, () -> hasher.partition(s, partitions), s);
          refused++;
        }
      }
    }
    assertTrue(refused > 0, "the alphabet makes unpaired surrogates");
  }

  @Test
  void otherKeysAndErrorsAsKeyPartitioner() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    for (Object key : new Object[] {42L, 7, (short) 3, (byte) 1, true, 2.5, Bytes.of(new byte[] {1, 2}),
        List.of("a", 1L), List.of(Bytes.of(new byte[] {3}), "b")}) {
      for (int partitions : new int[] {1, 2, 5}) {
        assertEquals(KeyPartitioner.partition(key, partitions), hasher.partition(key, partitions), key.toString());
      }
    }
    for (int partitions : new int[] {1, 3}) {
      assertThrows(InvalidRecordException.class, () -> hasher.partition(new Object(), partitions));
      assertThrows(InvalidRecordException.class, () -> hasher.partition(null, partitions));
      assertThrows(InvalidRecordException.class, () -> KeyPartitioner.partition(new Object(), partitions));
    }
  }

  @Test
  void bytesHashLikeTheirContentSoPartitionsMatchAYtsaurusStringColumn() {
    byte[] raw = {5, 6, 7};
    assertEquals(FarmHash.farmHash((Object) raw), KeyPartitioner.hash(Bytes.of(raw)));
    assertEquals(FarmHash.farmHash(raw, "x"), KeyPartitioner.hash(List.of(Bytes.of(raw), "x")));
    assertEquals(KeyPartitioner.hash(Bytes.of(raw)), KeyPartitioner.hash(Bytes.of(raw.clone())));
  }

  /** Finding 6: byte[] keys were supported (and recommended) though they compare by identity. */
  @Test
  void shouldRefuseIdentityKeysAtAnyPartitionCountOfferingBytes() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    for (Object key : new Object[] {new byte[] {1}, new int[] {1}, new String[] {"a"}, List.of("a", new byte[] {1}),
        new AtomicLong(1), new StringBuilder("a"), Thread.currentThread()}) {
      for (int partitions : new int[] {1, 4}) {
        InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> hasher.partition(key, partitions));
        assertFalse(EpochalException.isRetryable(e));
        assertThrows(InvalidRecordException.class, () -> KeyPartitioner.partition(key, partitions));
        if (key instanceof byte[] || key instanceof List) {
          assertTrue(e.getMessage().contains("identity") && e.getMessage().contains("Bytes"), e.getMessage());
        }
      }
    }
    InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> KeyPartitioner.hash(new Object()));
    assertTrue(e.getMessage().contains("Bytes") && !e.getMessage().contains("byte[] or"), e.getMessage());
  }

  /** Finding 6 (last part): an unpaired surrogate has no UTF-8 form; it was hashed as '?' and retried at the store. */
  @Test
  void shouldRefuseAStringKeyWithAnUnpairedSurrogateAtAnyPartitionCount() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    for (String key : new String[] {"a\ud800", "\udc00b", "x\ud83d\ud83d\ude00"}) {
      for (int partitions : new int[] {1, 4}) {
        InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> hasher.partition(key, partitions));
        assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
        assertThrows(InvalidRecordException.class, () -> KeyPartitioner.partition(List.of(key), partitions));
      }
    }
    assertEquals(KeyPartitioner.partition("\ud83d\ude00", 4), hasher.partition("\ud83d\ude00", 4), "a pair is fine");
  }
}
