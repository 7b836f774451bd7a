package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineHealth;
import io.epochal.pipeline.PipelineService;
import io.epochal.pipeline.RestartPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import io.epochal.spouts.ListSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The README's pipeline snippets (outputs, several sources, running as a service), held verbatim between
 * {@code README begin/end} markers ({@link ReadmeSnippetsTest} compares them with the README) and run over small
 * in-memory inputs.
 */
class ReadmePipelineSnippetsTest {

  @Test
  void theOutputsSnippetPublishesTheCommittedNewValues() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("word-counts");
    ListSpout<String> spout = ListSpout.of("words", List.of("a", "b", "a", "c", "a"), 2);
    PipelineBuilder builder = Pipeline.newBuilder("outputs");
    // README begin outputs
    CollectingSink<KeyValue<String, Long>> updates = new CollectingSink<>("updates");
    builder.source(spout).groupBy(word -> word)
        .persistentAggregate("word-counts", TransactionalMap.factory(store), Aggregators.count())
        .newValuesStream().to("updates", updates);     // updates.committed(): (txid, record) of committed batches only
    // README end outputs
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    Map<String, Long> last = new TreeMap<>();
    updates.committed().forEach(o -> last.put(o.value().key(), o.value().value()));
    assertEquals(Map.of("a", 3L, "b", 1L, "c", 1L), last);
    assertTrue(updates.committed().stream().allMatch(o -> o.txid() >= 1 && o.txid() <= 3), updates.committed()
        .toString());
  }

  /** A banner event of the several-sources snippet. */
  record Event(String bannerId, String kind) {
  }

  @Test
  void theSeveralSourcesSnippetCountsBothSpoutsInOneState() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("banners");
    StateFactory<MapState<String, Long>> factory = TransactionalMap.factory(store);
    io.epochal.pipeline.CombinerAggregator<Event, Long> aggregator = Aggregators.count();
    ListSpout<Event> showsSpout = ListSpout.of("shows",
        List.of(new Event("b1", "show"), new Event("b2", "show"), new Event("b1", "show")), 2);
    ListSpout<Event> clicksSpout = ListSpout.of("clicks", List.of(new Event("b1", "click")), 1);
    PipelineBuilder builder = Pipeline.newBuilder("banners");
    // README begin several-sources
    Stream<Event> shows = builder.source(showsSpout);
    Stream<Event> clicks = builder.source(clicksSpout);
    shows.merge(clicks).groupBy(Event::bannerId).persistentAggregate("banners", factory, aggregator);
    // README end several-sources
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    Map<String, Long> counts = new TreeMap<>();
    store.multiGet(List.of("b1", "b2")).forEach((k, cell) -> counts.put(k, cell.value()));
    assertEquals(Map.of("b1", 3L, "b2", 1L), counts);
  }

  private static PipelineBuilder declareWordCount(InMemoryBackingMap<String, TransactionalValue<Long>> store) {
    PipelineBuilder builder = Pipeline.newBuilder("word-count");
    builder.source(ListSpout.of("words", List.of("a", "b", "a"), 2)).groupBy(Function.<String>identity())
        .persistentAggregate("word-counts", TransactionalMap.factory(store), Aggregators.count());
    return builder;
  }

  @Test
  void theServiceSnippetRunsUntilClosed() throws InterruptedException {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("word-counts");
    // README begin service
    PipelineService service = PipelineService.builder("word-count", () -> declareWordCount(store)) // a fresh builder per (re)start
        .restartPolicy(RestartPolicy.defaults())  // retryable outage: rebuild after 1 s, 2 s, 4 s ... 1 min; 20 in a row
        .build()
        .stopOnShutdown()                         // SIGTERM/SIGINT: finish the batch being committed, then exit
        .start();

    PipelineHealth health = service.health();     // state, last committed txid, when, restarts, last failure
    boolean ready = health.ready();               // RUNNING (not starting, restarting or stopping)
    Optional<Duration> age = health.sinceLastCommit(Instant.now());
    OptionalLong lag = service.healthWithLag().lag();  // reads each source now: end - committed offsets, summed
    // README end service
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (service.health().lastCommittedTxid() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(2, service.health().lastCommittedTxid(), service.health().toString());
      assertTrue(service.health().ready(), service.health().toString());
      assertTrue(service.health().sinceLastCommit(Instant.now()).isPresent());
      assertTrue(age.isEmpty() || !age.get().isNegative());
      assertTrue(ready || health.state() != PipelineHealth.State.RUNNING);
      assertTrue(lag.isEmpty(), "a list spout does not report its lag: unknown, not 0");
    } finally {
      service.close();
    }
    assertTrue(service.awaitTermination(Duration.ofSeconds(30)));
    assertEquals(Optional.empty(), service.failure());
    assertEquals(2L, store.multiGet(List.of("a")).get("a").value());
  }
}
