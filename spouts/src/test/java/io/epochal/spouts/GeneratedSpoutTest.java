package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

class GeneratedSpoutTest {

  static <T> List<T> emit(GeneratedSpout<T> spout, long txid, Range range) {
    List<T> out = new ArrayList<>();
    spout.emit(new BatchAttempt(txid, 1), range, out::add);
    return out;
  }

  @Test
  void shouldGenerateRecordIFromI() {
    GeneratedSpout<Long> spout = GeneratedSpout.of("squares", 5, 2, i -> i * i);
    List<Long> all = new ArrayList<>();
    Optional<Range> previous = Optional.empty();
    for (long txid = 1; ; txid++) {
      Optional<Range> next = spout.nextBatch(txid, previous);
      if (next.isEmpty()) {
        break;
      }
      assertTrue(next.get().length() <= 2);
      all.addAll(emit(spout, txid, next.get()));
      previous = next;
    }
    assertEquals(List.of(0L, 1L, 4L, 9L, 16L), all);
  }

  @Test
  void shouldBeDeterministicAcrossInstances() {
    GeneratedSpout<String> a = GeneratedSpout.sentences("s", 42, 1000, 100);
    GeneratedSpout<String> b = GeneratedSpout.sentences("s", 42, 1000, 100);
    Range range = new Range(500, 600);
    assertEquals(emit(a, 6, range), emit(b, 6, range));
    assertNotEquals(emit(a, 6, range), emit(GeneratedSpout.sentences("s", 43, 1000, 100), 6, range));
  }

  @Test
  void shouldGenerateSentencesOfThreeToTwelveWords() {
    LongFunction<String> sentences = GeneratedSpout.sentences(7);
    for (long i = 0; i < 500; i++) {
      String s = sentences.apply(i);
      int words = s.split(" ").length;
      assertTrue(words >= 3 && words <= 12, s);
      assertTrue(s.matches("[a-z]+( [a-z]+)*"), s);
      assertEquals(s, sentences.apply(i));
    }
  }

  @Test
  void shouldRejectRangesBeyondCountAndNullRecords() {
    GeneratedSpout<String> spout = GeneratedSpout.of("g", 3, 10, i -> i == 1 ? null : "r" + i);
    assertThrows(SourceChangedException.class, () -> emit(spout, 1, new Range(0, 4)));
    InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> emit(spout, 1, new Range(0, 3)));
    assertTrue(e.getMessage().contains("record 1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> GeneratedSpout.of("g", -1, 1, i -> i));
    assertThrows(IllegalArgumentException.class, () -> GeneratedSpout.of("g", 1, 0, i -> i));
    assertThrows(NullPointerException.class, () -> GeneratedSpout.of("g", 1, 1, null));
  }
}
