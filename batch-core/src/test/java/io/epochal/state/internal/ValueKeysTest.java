package io.epochal.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.Bytes;
import java.time.DayOfWeek;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which keys have value equality (issue 10, finding 6). */
class ValueKeysTest {
  record Point(int x, int y) {
  }

  record Blob(String name, byte[] data) {
  }

  static final class Identity {
  }

  enum Color {
    RED { },
    BLUE
  }

  @Test
  void shouldAcceptValueKeysEnumsAndClasses() {
    for (Object key : new Object[] {"a", 1L, 2, 2.5, true, Bytes.of(new byte[] {1}), List.of("a", 1L),
        new Point(1, 2), DayOfWeek.MONDAY, TimeUnit.SECONDS, Color.RED, Color.BLUE, String.class, Optional.of("x"),
        java.util.Map.of("k", 1)}) {
      assertNull(ValueKeys.whyNotValueKey(key), key.toString());
      ValueKeys.require(key, ErrorContext.NONE);
    }
  }

  @Test
  void shouldRefuseIdentityKeys() {
    for (Object key : new Object[] {new byte[] {1}, new long[0], new Object[0], new Object(), new Identity(),
        new AtomicLong(), new StringBuilder("a"), Thread.currentThread(), (Runnable) () -> { },
        new Blob("b", new byte[0]), List.of("a", new byte[] {1}), List.of(List.of(new Identity()))}) {
      String why = ValueKeys.whyNotValueKey(key);
      assertNotNull(why, key.getClass().getName());
      InvalidRecordException e = assertThrows(InvalidRecordException.class,
          () -> ValueKeys.require(key, ErrorContext.of("counts", null)));
      assertEquals(Optional.of("counts"), e.context().table());
      assertTrue(e.context().key().isPresent());
      assertFalse(e.retryable());
      assertTrue(e.getMessage().contains("identity"), e.getMessage());
    }
    assertTrue(ValueKeys.whyNotValueKey(new byte[0]).contains("Bytes.of"));
    assertTrue(ValueKeys.whyNotValueKey(new Blob("b", null)).contains("'data'"));
    InvalidRecordException nullKey = assertThrows(InvalidRecordException.class,
        () -> ValueKeys.require(null, ErrorContext.of("counts", null)));
    assertTrue(nullKey.getMessage().contains("null key"), nullKey.getMessage());
  }
}
