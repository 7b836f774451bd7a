package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.storm.trident.operation.BaseFilter;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.operation.builtin.Sum;
import org.apache.storm.trident.state.map.MapCombinerAggStateUpdater;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.Test;

/**
 * Every {@code Fields} reference through {@code EpochalTrident} is checked: on a stream of known fields
 * ({@code newStream}, {@code withFields}) when the pipeline is built, with Trident's {@link IllegalArgumentException};
 * on other streams at the first record, with a non-retryable {@link InvalidRecordException} that stops the pipeline
 * without a single replay.
 */
class FieldsValidationTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final Fields NOPE = new Fields("nope");
  private static final AtomicInteger RUN = new AtomicInteger();

  private static PipelineBuilder builder() {
    return Pipeline.newBuilder("fields-" + RUN.incrementAndGet()).partitions(2)
        .retryPolicy(RetryPolicy.immediate(10));
  }

  private static Stream<TridentTuple> sentences(PipelineBuilder b) {
    return EpochalTrident.newStream(b, EpochalTrident.spout("sentences", Sentences.spout(List.of("a b", "b c"), 1)));
  }

  private static io.epochal.state.StateFactory<io.epochal.state.MapState<List<Object>, Long>> counts() {
    return TransactionalMap.factory(new InMemoryBackingMap<List<Object>, TransactionalValue<Long>>("counts"));
  }

  /** Asserts that wiring {@code wire} on a fresh builder is refused at once, naming {@code missing} and the fields. */
  private static void assertRefused(String missing, String available, Consumer<PipelineBuilder> wire) {
    PipelineBuilder b = builder();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> wire.accept(b));
    assertTrue(e.getMessage().contains("'" + missing + "'"), e.getMessage());
    assertTrue(e.getMessage().contains(available), e.getMessage());
  }

  /** Trident's own refusal, for comparison: the same wiring on a TridentTopology. */
  private static String tridentMessage(java.util.function.Consumer<org.apache.storm.trident.Stream> wire) {
    org.apache.storm.trident.TridentTopology topology = new org.apache.storm.trident.TridentTopology();
    org.apache.storm.trident.Stream stream = topology.newStream("s", Sentences.spout(List.of("a"), 1));
    return assertThrows(IllegalArgumentException.class, () -> wire.accept(stream)).getMessage();
  }

  @Test
  void shouldRefuseEveryMissingFieldWhenThePipelineIsBuiltAsTridentDoes() {
    String tridentEach = tridentMessage(s -> s.each(NOPE, new Split(), WORD));
    assertRefused("nope", "<[sentence]>", b -> sentences(b).flatMap(EpochalTrident.each(NOPE, new Split(), WORD)));
    PipelineBuilder b = builder();
    String ours = assertThrows(IllegalArgumentException.class,
        () -> sentences(b).flatMap(EpochalTrident.each(NOPE, new Split(), WORD))).getMessage();
    assertTrue(ours.endsWith(tridentEach), ours + " | " + tridentEach); // Trident's message, after what refused it

    assertRefused("nope", "<[sentence]>", b2 -> sentences(b2).filter(EpochalTrident.filter(NOPE, new KeepAll())));
    assertRefused("word", "<[sentence]>", b2 -> sentences(b2).groupBy(EpochalTrident.key(WORD)));
    assertRefused("nope", "<[sentence, word]>", b2 -> sentences(b2)
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("sum", TransactionalMap.factory(new InMemoryBackingMap<List<Object>,
            TransactionalValue<Number>>("sums")), EpochalTrident.combiner(NOPE, new Sum())));
    assertRefused("nope", "<[sentence, word]>", b2 -> sentences(b2)
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("len", counts(), EpochalTrident.reducer(NOPE, new Length())));
    assertRefused("one", "<[sentence, word]>", b2 -> sentences(b2)
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .partitionPersist("counts", counts(), EpochalTrident.updater(new Fields("word", "one"),
            new MapCombinerAggStateUpdater(new Count(), WORD, new Fields("one")))));
    assertRefused("nope", "<[sentence]>", b2 -> {
      Stream<TridentTuple> words = sentences(b2);
      MapStateRef<List<Object>, Long> state = words.flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD))
          .groupBy(EpochalTrident.key(WORD)).persistentAggregate("c", counts(), EpochalTrident.combiner(new Count()));
      EpochalTrident.stateQuery(words, state, NOPE, new MapGet(), new Fields("count"));
    });
    // Fields flow on: "count" exists after the stateQuery, "nope" does not.
    assertRefused("nope", "<[sentence, word, count]>", b2 -> {
      Stream<TridentTuple> words = sentences(b2).flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD));
      MapStateRef<List<Object>, Long> state = words.groupBy(EpochalTrident.key(WORD))
          .persistentAggregate("c", counts(), EpochalTrident.combiner(new Count()));
      EpochalTrident.stateQuery(words, state, WORD, new MapGet(), new Fields("count"))
          .filter(EpochalTrident.filter(new Fields("count"), new KeepAll()))
          .groupBy(EpochalTrident.key(NOPE));
    });
    // A function's fields may not repeat the stream's (Trident refuses it with "duplicate field").
    PipelineBuilder dup = builder();
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> sentences(dup).flatMap(EpochalTrident.each(SENTENCE, new Split(), SENTENCE)));
    assertTrue(twice.getMessage().contains("duplicate field 'sentence'"), twice.getMessage());
  }

  @Test
  void shouldBuildAndCountWhenTheWiringIsRight() {
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    PipelineBuilder b = builder();
    Stream<TridentTuple> words = sentences(b).flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD))
        .filter(EpochalTrident.filter(WORD, new KeepAll()));
    words.groupBy(EpochalTrident.key(WORD)).toStream().groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", TransactionalMap.factory(store), EpochalTrident.combiner(WORD, new Count()));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> counts = new TreeMap<>();
    store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v.value()));
    assertEquals(Map.of("a", 1L, "b", 2L, "c", 1L), counts);
    assertEquals(List.of("sentence", "word"), FieldsStream.fieldsOf(words).orElseThrow().toList());
  }

  @Test
  void shouldCheckDeclaredFieldsAtBuildTimeAndRecordsAtRunTime() {
    PipelineBuilder b = builder();
    Stream<TridentTuple> declared = EpochalTrident.withFields(b.source(EpochalTrident.spout("s",
        Sentences.spout(List.of("a b"), 1))).map(t -> EpochalTrident.tuple(new Fields("line"),
        List.of(t.getString(0)))), new Fields("text"));
    assertThrows(IllegalArgumentException.class,
        () -> declared.flatMap(EpochalTrident.each(new Fields("line"), new Split(), WORD)));
    declared.flatMap(EpochalTrident.each(new Fields("text"), new Split(), WORD)); // builds: "text" was declared
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("[text]") && e.getMessage().contains("[line]"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> EpochalTrident.newStream(builder(),
        io.epochal.spouts.ListSpout.<TridentTuple>of("plain", List.of(), 1)));
  }

  /** On a plain stream, Epochal cannot know the fields: the first record stops the pipeline, with no replay. */
  @Test
  void shouldStopAtTheFirstRecordWithoutRetryingWhenTheFieldsAreUnknown() {
    for (int wiring = 0; wiring < 6; wiring++) {
      PipelineBuilder b = builder();
      Stream<TridentTuple> plain = b.source(EpochalTrident.spout("sentences",
          Sentences.spout(List.of("a b", "b c"), 1)));
      switch (wiring) {
        case 0:
          plain.flatMap(EpochalTrident.each(NOPE, new Split(), WORD));
          break;
        case 1:
          plain.filter(EpochalTrident.filter(NOPE, new KeepAll()));
          break;
        case 2:
          plain.groupBy(EpochalTrident.key(NOPE)).persistentAggregate("c", counts(),
              EpochalTrident.combiner(new Count()));
          break;
        case 3:
          plain.groupBy(EpochalTrident.key(SENTENCE)).persistentAggregate("c", counts(),
              EpochalTrident.combiner(NOPE, new Count()));
          break;
        case 4:
          plain.groupBy(EpochalTrident.key(SENTENCE)).partitionPersist("c", counts(),
              EpochalTrident.updater(NOPE, new MapCombinerAggStateUpdater(new Count(), SENTENCE, NOPE)));
          break;
        default: {
          MapStateRef<List<Object>, Long> state = plain.groupBy(EpochalTrident.key(SENTENCE))
              .persistentAggregate("c", counts(), EpochalTrident.combiner(new Count()));
          EpochalTrident.stateQuery(plain, state, NOPE, new MapGet(), new Fields("count"));
        }
      }
      try (Pipeline p = b.build()) {
        InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle, "wiring " + wiring);
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("<[sentence]>"), e.getMessage());
        assertFalse(EpochalException.isRetryable(e));
        assertEquals(0, p.lastCommittedTxid());
      }
    }
  }

  @Test
  void shouldStopWhenTridentCodeEmitsTuplesNotMatchingItsFields() {
    PipelineBuilder b = builder();
    b.source(EpochalTrident.spout("sentences", Sentences.spout(List.of("a b"), 1)))
        .flatMap(EpochalTrident.each(SENTENCE, new TwoValues(), WORD)); // declares one field, emits two
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("[word]"), e.getMessage());
    }
  }

  @Test
  void shouldRefuseAnOperationStormCouldNotSerializeWhenItIsAdapted() {
    Object notSerializable = new Object();
    BaseFunction captures = new BaseFunction() { // an anonymous class capturing the test instance
      @Override
      public void execute(TridentTuple tuple, TridentCollector collector) {
        collector.emit(new Values(notSerializable.toString()));
      }
    };
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EpochalTrident.each(SENTENCE, captures, WORD));
    assertTrue(e.getMessage().contains("Java serialization"), e.getMessage());
  }

  static final class TwoValues extends BaseFunction {
    @Override
    public void execute(TridentTuple tuple, TridentCollector collector) {
      collector.emit(new Values("x", "y"));
    }
  }

  static final class KeepAll extends BaseFilter {
    @Override
    public boolean isKeep(TridentTuple tuple) {
      return true;
    }
  }

  static final class Length implements org.apache.storm.trident.operation.ReducerAggregator<Long> {
    @Override
    public Long init() {
      return 0L;
    }

    @Override
    public Long reduce(Long curr, TridentTuple tuple) {
      return curr + tuple.getString(0).length();
    }
  }
}
