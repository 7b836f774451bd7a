package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Dedup;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import io.epochal.spouts.ListSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's dedup snippet ({@code Dedup.byId} over a table-backed id state), held verbatim between
 * {@code README begin/end} markers ({@link ReadmeSnippetsTest} compares it with the README) and run over a small input
 * with duplicate message ids, within one batch and across batches.
 */
class ReadmeDedupSnippetTest {
  /** A message of the snippet: its producer may deliver it more than once. */
  record Event(String messageId, String word) {
  }

  @Test
  void theDedupSnippetKeepsTheFirstRecordOfEachMessageId() {
    TableStore tables = TableStores.inMemory();
    ListSpout<Event> spout = ListSpout.of("events", List.of(new Event("m1", "a"), new Event("m2", "b"),
        new Event("m1", "a"), new Event("m3", "c"), new Event("m2", "b"), new Event("m3", "c")), 2);
    PipelineBuilder builder = Pipeline.newBuilder("dedup").checkpointStore(TableCheckpointStore.on(tables));
    // README begin dedup
    Stream<Event> events = Dedup.byId(builder.source(spout), "seen-ids", Event::messageId, 1_000,
        TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings(), Codecs.longs())));
    // README end dedup
    CollectingSink<Event> out = new CollectingSink<>("out");
    events.to("out", out);
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    List<String> kept = out.committed().stream().map(o -> o.value().messageId()).sorted().toList();
    assertEquals(List.of("m1", "m2", "m3"), kept, "each message id once, the duplicates in later batches dropped");
  }
}
