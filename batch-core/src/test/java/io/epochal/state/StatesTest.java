package io.epochal.state;

import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The States facade and the forwarding bases pass the whole lifecycle, abort included. */
class StatesTest {

  /** Logs the lifecycle it is forwarded. */
  private static final class Lifecycle<K, C> extends ForwardingBackingMap<K, C> {
    final List<String> log;

    Lifecycle(IBackingMap<K, C> inner, List<String> log) {
      super(inner);
      this.log = log;
    }

    private long txid;

    @Override
    public void begin(Epoch epoch) {
      txid = epoch.txid();
      log.add("begin " + txid);
      super.begin(epoch);
    }

    @Override
    public void abort() {
      log.add("abort " + txid);
      super.abort();
    }
  }

  @Test
  void aComposedStateForwardsTheLifecycleThroughEveryLayer() {
    List<String> log = new ArrayList<>();
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>();
    States.Composition<String, Long> composed = States.over(store).layer(m -> new Lifecycle<>(m, log)).cached(10);
    assertTrue(composed.map() instanceof CachedMap);
    MapState<String, Long> state = composed.<MapState<String, Long>>as(NonTransactionalMap::factory)
        .makeState(new StateContext("p", "s", 0, 1));
    MapState<String, Long> metered = new ForwardingMapState<>(state) {
      @Override
      public void abort() {
        log.add("metered abort 1");
        super.abort();
      }
    };
    metered.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    metered.multiPut(Map.of("a", 1L));
    metered.abort();
    assertEquals(List.of("begin 1", "metered abort 1", "abort 1"), log);
    assertThrows(IllegalStateException.class, () -> metered.multiGet(List.of("zz")), "no epoch is open after abort");
    metered.begin(Epoch.of("test", new BatchAttempt(1, 2)));
    assertEquals(Map.of(), metered.multiGet(List.of("zz")));
    assertEquals(Map.of("a", 1L), store.multiGet(List.of("a")), "write-through store: the cache only was dropped");
  }
}
