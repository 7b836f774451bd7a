package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.cache.ManualTicker;
import io.epochal.cache.StateCache;
import io.epochal.codec.Codecs;
import io.epochal.flow.FlowTesting.CountingStore;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A joiner serves cached values until their TTL passes, on a fake clock: no sleeps. */
class JoinerTtlTest {
  private final CountingStore store = new CountingStore(TableStores.inMemory());
  private final TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
  private final ManualTicker ticker = new ManualTicker();
  private final FlowStates states = FlowStates.builder()
      .cache(StateCache.builder().ticker(ticker).build()).build();
  private final Table banners = store.openTable(TableSchema.builder("ads/banners").key("key", ColumnType.STRING)
      .requiredValue("value", ColumnType.BYTES).build());

  private void writeBanner(String id, String title) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(banners, Row.of(banners.schema().key(id), (Object) Codecs.strings().encode(title)));
      tx.commit();
    }
  }

  @Test
  void shouldServeJoinedValuesFromTheCacheUntilTheirTtlPasses() {
    writeBanner("b1", "title v1");
    List<String> seen = new CopyOnWriteArrayList<>();
    ListSpout<String> spout = new ListSpout<>(List.of("b1", "b2"));
    PipelineBuilder builder = Pipeline.newBuilder("ttl").checkpointStore(checkpoints);
    Stream<String> records = builder.source(spout);
    Flow.process(records, "titles", r -> r, () -> new KeyedProcessor<String, String, String>() {
      JoinedStateClient<String, String> titles;

      @Override
      public void init(ProcessorContext<String> context) {
        titles = context.joiner(JoinSpec.table("titles", "ads/banners", KeyCodec.strings(), Codecs.strings())
            .ttl(Duration.ofSeconds(30)).build());
      }

      @Override
      public void process(String key, List<String> recs, Emitter<String> out) {
        seen.add(key + "=" + titles.accessor(key).getOrDefault("none"));
      }
    }, states);
    List<Integer> lookups = new ArrayList<>();
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
      lookups.add(store.lookups("ads/banners"));

      writeBanner("b1", "title v2"); // the owner changes b1 and creates b2
      writeBanner("b2", "other");
      ticker.advance(Duration.ofSeconds(29));
      spout.batches.add(List.of("b1", "b2"));
      pipeline.runUntilIdle();
      lookups.add(store.lookups("ads/banners"));

      ticker.advance(Duration.ofSeconds(1)); // 30 s after the load: expired
      spout.batches.add(List.of("b1", "b2"));
      pipeline.runUntilIdle();
      lookups.add(store.lookups("ads/banners"));
    }
    assertEquals(List.of("b1=title v1", "b2=none", "b1=title v1", "b2=none", "b1=title v2", "b2=other"), seen,
        "within the TTL the joiner serves the cached value (and the cached absence); after it, the table's");
    assertEquals(List.of(1, 1, 2), lookups, "one bulk lookup per load, none while cached");
  }
}
