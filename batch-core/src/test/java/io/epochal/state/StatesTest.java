package io.epochal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @Override
    public void beginCommit(long txid) {
      log.add("begin " + txid);
      super.beginCommit(txid);
    }

    @Override
    public void abort(long txid) {
      log.add("abort " + txid);
      super.abort(txid);
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
      public void abort(long txid) {
        log.add("metered abort " + txid);
        super.abort(txid);
      }
    };
    metered.beginCommit(1);
    metered.multiPut(1, Map.of("a", 1L));
    metered.abort(1);
    assertEquals(List.of("begin 1", "metered abort 1", "abort 1"), log);
    assertEquals(Map.of(), metered.multiGet(1, List.of("zz")));
    assertEquals(Map.of("a", 1L), store.multiGet(List.of("a")), "write-through store: the cache only was dropped");
  }
}
