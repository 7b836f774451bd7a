package io.epochal.testkit;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link FaultInjector#wrap(IBackingMap)} forwards the whole lifecycle to the map it wraps. */
class FaultInjectorLifecycleTest {

  /** Records the lifecycle calls it receives. */
  private static final class Lifecycle implements IBackingMap<String, Long> {
    final List<String> calls = new ArrayList<>();
    final InMemoryBackingMap<String, Long> cells = new InMemoryBackingMap<>();

    @Override
    public Map<String, Long> multiGet(Collection<? extends String> keys) {
      return cells.multiGet(keys);
    }

    @Override
    public void multiPut(Map<String, Long> values) {
      cells.multiPut(values);
    }

    @Override
    public void begin(Epoch epoch) {
      calls.add("begin " + txid);
    }

    @Override
    public void end() {
      calls.add("commit " + txid);
    }

    @Override
    public void abort() {
      calls.add("abort " + txid);
    }
  }

  @Test
  void beginCommitCommitAndAbortReachTheWrappedMap() {
    Lifecycle inner = new Lifecycle();
    IBackingMap<String, Long> wrapped = new FaultInjector(List.of()).wrap(inner);
    wrapped.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    wrapped.end();
    wrapped.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    wrapped.abort();
    assertEquals(List.of("begin 1", "commit 1", "begin 2", "abort 2"), inner.calls);
  }

  @Test
  void aCachedMapUnderTheInjectorDropsAFailedAttemptsCells() {
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>();
    CachedMap<String, Long> cache = new CachedMap<>(store, 10);
    IBackingMap<String, Long> wrapped = new FaultInjector(List.of()).wrap(cache);
    wrapped.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    wrapped.multiPut(Map.of("a", 1L));
    store.multiPut(Map.of("a", 0L)); // what the store holds once the failed attempt is undone (an epoch-buffered map)
    wrapped.abort();
    assertEquals(Map.of("a", 0L), wrapped.multiGet(List.of("a")), "the abort reached the cache, which evicted");
  }
}
