package io.epochal.testkit;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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
    final List<Epoch> epochs = new ArrayList<>();
    final InMemoryBackingMap<String, Long> cells = new InMemoryBackingMap<>();
    private long txid;

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
      txid = epoch.txid();
      epochs.add(epoch);
      calls.add("begin " + txid);
    }

    @Override
    public void end() {
      calls.add("end " + txid);
    }

    @Override
    public void abort() {
      calls.add("abort " + txid);
    }
  }

  @Test
  void beginEndAndAbortReachTheWrappedMapWithTheSameEpoch() {
    Lifecycle inner = new Lifecycle();
    IBackingMap<String, Long> wrapped = new FaultInjector(List.of()).wrap(inner);
    Epoch first = Epoch.of("test", new BatchAttempt(1, 1));
    Epoch second = Epoch.of("test", new BatchAttempt(2, 1));
    wrapped.begin(first);
    wrapped.end();
    wrapped.begin(second);
    wrapped.abort();
    assertEquals(List.of("begin 1", "end 1", "begin 2", "abort 2"), inner.calls);
    assertSame(first, inner.epochs.get(0));
    assertSame(second, inner.epochs.get(1));
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
