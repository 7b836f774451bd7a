package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.InvalidRecordException;
import io.epochal.hash.FarmHash;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The allocation-free hasher of groupBy gives exactly the partitions (and errors) of {@link KeyPartitioner}. */
class KeyPartitionerHasherTest {

  @Test
  void stringsHashLikeFarmHash() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    SplittableRandom random = new SplittableRandom(7);
    char[] alphabet = "abcXYZ019 -_/\u00e9\u00ff\u0100\u20ac\ud83d\ude00\u0000\u007f\u0080".toCharArray();
    for (int i = 0; i < 20_000; i++) {
      int len = random.nextInt(0, i % 100 == 0 ? 300 : 40);
      StringBuilder sb = new StringBuilder(len);
      boolean asciiOnly = random.nextBoolean();
      for (int c = 0; c < len; c++) {
        sb.append(asciiOnly ? (char) random.nextInt(0, 0x80) : alphabet[random.nextInt(alphabet.length)]);
      }
      String s = sb.toString();
      assertEquals(FarmHash.farmHash(s), hasher.hash(s), s);
      for (int partitions : new int[] {1, 2, 3, 4, 7, 64}) {
        assertEquals(KeyPartitioner.partition(s, partitions), hasher.partition(s, partitions), s);
      }
    }
  }

  @Test
  void otherKeysAndErrorsAsKeyPartitioner() {
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    for (Object key : new Object[] {42L, 7, (short) 3, (byte) 1, true, 2.5, new byte[] {1, 2}, List.of("a", 1L)}) {
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
}
