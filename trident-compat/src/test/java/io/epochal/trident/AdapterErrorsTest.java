package io.epochal.trident;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.BaseQueryFunction;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.map.IBackingMap;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.Test;

/**
 * Errors of the adapters that no replay can fix (broken Trident stores and states, query functions breaking their
 * contract, misuse of the Trident view) are non-retryable: {@code EpochalException.isRetryable} is false, so the engine
 * stops at the first occurrence instead of replaying the batch {@code maxAttempts} times.
 */
class AdapterErrorsTest {
  private static final AtomicInteger RUN = new AtomicInteger();

  /** A Trident IBackingMap that returns one value too few. */
  static final class ShortBackingMap implements IBackingMap<OpaqueValue> {
    @Override
    public List<OpaqueValue> multiGet(List<List<Object>> keys) {
      return new ArrayList<>(Arrays.asList(new OpaqueValue[keys.size() - 1]));
    }

    @Override
    public void multiPut(List<List<Object>> keys, List<OpaqueValue> vals) {
    }
  }

  /** A Trident state that is not a map. */
  static final class NotAMap implements StateFactory {
    @Override
    public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partitionIndex, int numPartitions) {
      return new State() {
        @Override
        public void beginCommit(Long txid) {
        }

        @Override
        public void commit(Long txid) {
        }
      };
    }
  }

  /** A query function returning no results. */
  static final class NoResults extends BaseQueryFunction<State, Object> {
    @Override
    public List<Object> batchRetrieve(State state, List<TridentTuple> args) {
      return List.of();
    }

    @Override
    public void execute(TridentTuple tuple, Object result, TridentCollector collector) {
      collector.emit(new Values(result));
    }
  }

  private static void assertNotRetryable(RuntimeException e) {
    assertFalse(EpochalException.isRetryable(e), e.toString());
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldNotRetryABrokenTridentBackingMap() {
    MapState<List<Object>, Object> map = (MapState<List<Object>, Object>) (MapState) EpochalTrident.opaqueState(
        new ShortBackingMap()).makeState(new StateContext("p", "counts", 0, 1));
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    EpochalException e = assertThrows(EpochalException.class, () -> map.multiGet(List.of(List.of("a"),
        List.of("b"))));
    assertNotRetryable(e);
    assertTrue(e.context().table().isPresent());
  }

  @Test
  void shouldNotRetryATridentStateUsedAsAMapThatIsNone() {
    MapState<List<Object>, Object> map = EpochalTrident.<Object>tridentState(new NotAMap(), StateKind.OPAQUE)
        .makeState(new StateContext("p", "counts", 0, 1));
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertNotRetryable(assertThrows(EpochalException.class, () -> map.multiGet(List.of(List.of("a")))));
  }

  @Test
  void shouldReportAQueryFunctionBreakingItsContractAsNotRetryable() {
    PipelineBuilder b = Pipeline.newBuilder("broken-query-" + RUN.incrementAndGet())
        .retryPolicy(RetryPolicy.immediate(10));
    Stream<TridentTuple> words = EpochalTrident.newStream(b, EpochalTrident.spout("s",
        Sentences.spout(List.of("a", "b"), 1)));
    MapStateRef<List<Object>, Long> counts = words.groupBy(EpochalTrident.key(new Fields("sentence")))
        .persistentAggregate("counts", EpochalTrident.tridentState(new MemoryMapState.Factory()),
            EpochalTrident.combiner(new Count()));
    EpochalTrident.stateQuery(words, counts, new Fields("sentence"), new NoResults(), new Fields("result"));
    try (Pipeline p = b.build()) {
      RuntimeException e = assertThrows(RuntimeException.class, p::runUntilIdle);
      Throwable broken = e;
      while (broken != null && !(broken.getMessage() != null && broken.getMessage().contains("NoResults returned"))) {
        broken = broken.getCause();
      }
      assertTrue(broken instanceof EpochalException, "the adapter's own error: " + e);
      assertNotRetryable((EpochalException) broken);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldNotRetryMisuseOfTheTridentView() {
    MapState<List<Object>, Object> map = io.epochal.state.opaque.OpaqueMap.over(
        new io.epochal.state.InMemoryBackingMap<>("m"), "m");
    org.apache.storm.trident.state.map.MapState<Object> view =
        (org.apache.storm.trident.state.map.MapState<Object>) Operations.tridentView(map, 1, "test");
    assertNotRetryable(assertThrows(EpochalException.class,
        () -> view.multiGet(Arrays.asList((List<Object>) null))));
    assertNotRetryable(assertThrows(EpochalException.class, () -> view.multiPut(List.of(List.of("a")), List.of())));
  }
}
