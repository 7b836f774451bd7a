package io.epochal.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AttemptCacheTest {

  /** Counts the keys each multiGet asks for. */
  private static final class Counting implements IBackingMap<String, Integer> {
    final InMemoryBackingMap<String, Integer> inner = new InMemoryBackingMap<>("counting");
    final List<Collection<? extends String>> reads = new ArrayList<>();

    @Override
    public Map<String, Integer> multiGet(Collection<? extends String> keys) {
      reads.add(List.copyOf(keys));
      return inner.multiGet(keys);
    }

    @Override
    public void multiPut(Map<String, Integer> cells) {
      inner.multiPut(cells);
    }
  }

  private static Map<String, Integer> cells(Object... kv) {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Integer) kv[i + 1]);
    }
    return m;
  }

  @Test
  void theNewestWriteOfAKeyWinsAcrossManyWritesOfOneAttemptAndAfterTheyAreMerged() {
    AttemptCache<String, Integer> cache = new AttemptCache<>();
    Counting store = new Counting();
    int writes = AttemptCache.MAX_SEGMENTS * 3;
    for (int i = 1; i <= writes; i++) {
      cache.writeThrough(cells("a", i, "k" + i, i), store);
      assertEquals(i, cache.get("a"), "after write " + i);
      assertEquals(1, cache.get("k1"), "after write " + i);
    }
    assertEquals(writes + 1, cache.size(), "a and k1..k" + writes);
    assertEquals(writes, store.inner.snapshot().get("a"));
    assertNull(cache.get("b"));
  }

  @Test
  void onlyKeysNotWrittenInTheAttemptAreRead() {
    AttemptCache<String, Integer> cache = new AttemptCache<>();
    Counting store = new Counting();
    store.inner.multiPut(cells("a", 1, "b", 2, "c", 3));
    assertEquals(cells("a", 1, "b", 2), cache.readUncached(List.of("a", "b"), store));
    cache.writeThrough(cells("a", 10), store);
    cache.writeThrough(cells("b", 20), store);
    assertEquals(cells("c", 3), cache.readUncached(List.of("a", "b", "c"), store));
    assertEquals(List.of("c"), store.reads.get(1));
    assertTrue(cache.readUncached(List.of("a", "b"), store).isEmpty());
    assertEquals(2, store.reads.size(), "every key cached: no read");
    cache.clear();
    assertNull(cache.get("a"));
    assertEquals(0, cache.size());
  }

  @Test
  void aStoreThatChangesTheMapItIsGivenFailsAndNothingIsCached() {
    AttemptCache<String, Integer> cache = new AttemptCache<>();
    IBackingMap<String, Integer> meddling = new IBackingMap<>() {
      @Override
      public Map<String, Integer> multiGet(Collection<? extends String> keys) {
        return Map.of();
      }

      @Override
      public void multiPut(Map<String, Integer> cells) {
        cells.clear();
      }
    };
    assertThrows(UnsupportedOperationException.class, () -> cache.writeThrough(cells("a", 1), meddling));
    assertNull(cache.get("a"));
  }

  @Test
  void droppingKeysNeverChangesAMapHandedOverEarlier() {
    AttemptCache<String, Integer> cache = new AttemptCache<>();
    Counting store = new Counting();
    Map<String, Integer> first = cells("a", 1, "b", 2);
    cache.writeThrough(first, store);
    cache.drop(List.of("a", "zz"));
    assertNull(cache.get("a"));
    assertEquals(2, cache.get("b"));
    assertEquals(cells("a", 1, "b", 2), first, "a multiUpdate's result is a view of this map");
    cache.drop(List.of("b"));
    assertEquals(0, cache.size());
    assertTrue(cache.readUncached(List.of("a"), store).containsKey("a"), "dropped: read from the store again");
  }
}
