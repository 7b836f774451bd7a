package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.sink.CollectingSink;
import io.epochal.sink.Sink;
import io.epochal.state.Epoch;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Outputs as nodes: staged in the epoch, published only after it committed. */
class SinkNodeTest {

  /** Logs its calls into the shared log. */
  private static final class LoggingSink implements Sink<String> {
    final List<String> log;

    LoggingSink(List<String> log) {
      this.log = log;
    }

    @Override
    public void stage(Epoch epoch, List<String> records) {
      log.add("stage " + epoch.attempt() + " " + records);
    }

    @Override
    public void afterCommit(long txid) {
      log.add("publish " + txid);
    }

    @Override
    public void abort(long txid) {
      log.add("abort " + txid);
    }
  }

  @Test
  void aSinkPublishesOnlyAfterItsEpochCommittedAndDropsAFailedAttempt() {
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    CollectingSink<String> collected = new CollectingSink<>("words");
    PipelineBuilder b = Pipeline.newBuilder("sinks").checkpointStore(new EngineTesting.FailingCommit(new InMemoryCheckpointStore(), 2, false,
        () -> new EpochalException("checkpoint commit failed", null, true, ErrorContext.NONE), log))
        .retryPolicy(RetryPolicy.immediate(3)).sleeper(d -> { });
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a", "b"), List.of("c"), List.of())));
    Stream<String> upper = words.map(String::toUpperCase);
    upper.to("log", new LoggingSink(log));
    upper.to("collected", collected);
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
      assertEquals(3, p.lastCommittedTxid());
    }
    assertEquals(List.of(
        "stage txid 1 attempt 1 [A, B]", "committed 1", "publish 1",
        "stage txid 2 attempt 1 [C]", "commit 2 failed", "abort 2",
        "stage txid 2 attempt 2 [C]", "committed 2", "publish 2",
        "stage txid 3 attempt 1 []", "committed 3", "publish 3"), log);
    assertEquals(List.of(new CollectingSink.Output<>(1, "A"), new CollectingSink.Output<>(1, "B"),
        new CollectingSink.Output<>(2, "C")), collected.committed());
  }

  @Test
  void aPartitionedSinkIsStagedPerPartitionAndPublishedInPartitionOrder() {
    CollectingSink<String> collected = new CollectingSink<>("grouped");
    PipelineBuilder b = Pipeline.newBuilder("parts").partitions(4).threads(2);
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a", "b", "c", "d", "e", "f", "g", "h"))));
    words.groupBy(w -> w).toStream().to("grouped", collected);
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    List<String> ungrouped = new ArrayList<>(); // toStream(): the keys' partitions, in partition order
    for (int part = 0; part < 4; part++) {
      for (String w : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
        if (KeyPartitioner.partition(w, 4) == part) {
          ungrouped.add(w);
        }
      }
    }
    List<String> expected = new ArrayList<>(); // a flat stream is spread round-robin, published partition by partition
    for (int part = 0; part < 4; part++) {
      for (int i = part; i < ungrouped.size(); i += 4) {
        expected.add(ungrouped.get(i));
      }
    }
    assertEquals(expected, collected.values());
  }

  @Test
  void sinkNamesAreUnique() {
    PipelineBuilder b = Pipeline.newBuilder("dup");
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a"))));
    words.to("out", new CollectingSink<>("one"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> words.to("out", new CollectingSink<>("two")));
    assertTrue(e.getMessage().contains("sink 'out'"), e.getMessage());
  }
}
