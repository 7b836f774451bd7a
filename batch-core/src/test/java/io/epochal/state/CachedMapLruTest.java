package io.epochal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CachedMap} without Caffeine: least recently used cells go first, and the counters say so. */
class CachedMapLruTest {

  @Test
  void theLeastRecentlyUsedCellIsEvictedAndReadFromTheStoreAgain() {
    RecordingBackingMap<String, Long> store = new RecordingBackingMap<>();
    store.seed("a", 1L).seed("b", 2L).seed("c", 3L);
    CachedMap<String, Long> cache = new CachedMap<>(store, 2);
    cache.multiGet(List.of("a"));
    cache.multiGet(List.of("b"));
    cache.multiGet(List.of("a")); // a is now more recent than b
    cache.multiGet(List.of("c")); // evicts b
    store.forgetCalls();
    assertEquals(Map.of("a", 1L, "c", 3L), cache.multiGet(List.of("a", "c")));
    assertEquals(List.of(), store.gets(), "a and c are cached");
    assertEquals(Map.of("b", 2L), cache.multiGet(List.of("b")));
    assertEquals(List.of(List.of("b")), store.gets(), "b was evicted");
    assertEquals(new CachedMap.Stats(3, 4, 2), cache.stats());
  }

  @Test
  void aMaximumSizeBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CachedMap<>(new RecordingBackingMap<String, Long>(), 0));
  }
}
