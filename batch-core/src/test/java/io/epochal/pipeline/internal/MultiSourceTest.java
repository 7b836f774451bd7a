package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Several sources in one pipeline: one batch of each per txid, all metadata committed together. */
class MultiSourceTest {

  /** An opaque spout over a list: each emission takes the next {@code step} records after the previous position. */
  private static final class ListOpaque implements OpaqueSpout<String, Long> {
    final String name;
    final List<String> records;
    final int step;
    final List<String> emissions = new CopyOnWriteArrayList<>();

    ListOpaque(List<String> records, int step) {
      this("clicks", records, step);
    }

    ListOpaque(String name, List<String> records, int step) {
      this.name = name;
      this.records = records;
      this.step = step;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public boolean isReady(long txid, Optional<Long> previous) {
      return previous.orElse(0L) < records.size();
    }

    @Override
    public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<String> out) {
      long from = previous.orElse(0L);
      long to = Math.min(records.size(), from + step);
      emissions.add(attempt.txid() + "/" + attempt.attempt() + "/" + from + ".." + to);
      for (long i = from; i < to; i++) {
        out.emit(records.get((int) i));
      }
      return to;
    }
  }

  private static final List<List<String>> SHOWS = List.of(List.of("s1", "s2"), List.of("s3"), List.of("s4"));
  private static final List<String> CLICKS = List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7");

  private record Run(Pipeline pipeline, CollectingSink<String> out, ListSpout<String> shows, ListOpaque clicks) {
  }

  private static Run build(CheckpointStore store, CollectingSink<String> out, int maxBatches) {
    ListSpout<String> shows = new ListSpout<>(SHOWS);
    ListOpaque clicks = new ListOpaque(CLICKS, 2);
    PipelineBuilder b = Pipeline.newBuilder("ads").checkpointStore(store).retryPolicy(RetryPolicy.immediate(3))
        .sleeper(d -> { });
    Stream<String> s = b.source(shows);
    Stream<String> c = b.source(clicks);
    s.merge(c).to("events", out);
    return new Run(b.build(), out, shows, clicks);
  }

  @Test
  void eachTxidHoldsOneBatchOfEachSourceUntilBothAreExhausted() {
    CollectingSink<String> out = new CollectingSink<>("events");
    Run run = build(new InMemoryCheckpointStore(), out, 0);
    try (Pipeline p = run.pipeline()) {
      p.runUntilIdle();
      assertEquals(4, p.lastCommittedTxid(), "clicks need 4 batches of 2, shows 3");
    }
    assertEquals(List.of(
        new CollectingSink.Output<>(1, "s1"), new CollectingSink.Output<>(1, "s2"), new CollectingSink.Output<>(1, "c1"),
        new CollectingSink.Output<>(1, "c2"), new CollectingSink.Output<>(2, "s3"), new CollectingSink.Output<>(2, "c3"),
        new CollectingSink.Output<>(2, "c4"), new CollectingSink.Output<>(3, "s4"), new CollectingSink.Output<>(3, "c5"),
        new CollectingSink.Output<>(3, "c6"), new CollectingSink.Output<>(4, "c7")), out.committed());
  }

  @Test
  void aReplayReEmitsTheTransactionalCutAndTheOpaqueSourceFromItsPreviousPosition() {
    InMemoryCheckpointStore real = new InMemoryCheckpointStore();
    CollectingSink<String> out = new CollectingSink<>("events");
    Run run = build(new EngineTesting.FailingCommit(real, 2, false,
        () -> new EpochalException("commit failed", null, true, ErrorContext.NONE)), out, 0);
    try (Pipeline p = run.pipeline()) {
      p.runUntilIdle();
    }
    assertEquals(List.of("1/1/0", "2/1/1", "2/2/1", "3/1/2"), run.shows().emissions);
    assertEquals(List.of("1/1/0..2", "2/1/2..4", "2/2/2..4", "3/1/4..6", "4/1/6..7"), run.clicks().emissions);
    assertEquals(List.of("s1", "s2", "c1", "c2", "s3", "c3", "c4", "s4", "c5", "c6", "c7"), out.values());
  }

  @Test
  void aRestartResumesEverySourceFromTheMetadataCommittedTogether() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    CollectingSink<String> out = new CollectingSink<>("events");
    try (Pipeline p = build(store, out, 0).pipeline()) {
      p.run(2);
    }
    Run second = build(store, out, 0);
    try (Pipeline p = second.pipeline()) {
      p.runUntilIdle();
      assertEquals(4, p.lastCommittedTxid());
    }
    // attempt numbers grow across restarts: compare txid and metadata only
    assertEquals(List.of("3/2"), withoutAttempts(second.shows().emissions), "shows go on with its third batch");
    assertEquals(List.of("3/4..6", "4/6..7"), withoutAttempts(second.clicks().emissions), "clicks from position 4");
    assertEquals(List.of("s1", "s2", "c1", "c2", "s3", "c3", "c4", "s4", "c5", "c6", "c7"), out.values());
  }

  private static List<String> withoutAttempts(List<String> emissions) {
    return emissions.stream().map(e -> e.replaceFirst("/\\d+/", "/")).toList();
  }

  @Test
  void aCheckpointOfAnotherSourceCountIsRefused() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    try (Pipeline p = build(store, new CollectingSink<>("events"), 0).pipeline()) {
      p.run(1);
    }
    PipelineBuilder one = Pipeline.newBuilder("ads").checkpointStore(store);
    one.source(new ListSpout<>(SHOWS)).to("events", new CollectingSink<>("events"));
    EpochalException single = assertThrows(EpochalException.class, one::build, "one source cannot read it");
    assertTrue(!single.retryable());
    PipelineBuilder three = Pipeline.newBuilder("ads").checkpointStore(store);
    Stream<String> a = three.source(new ListSpout<>(SHOWS));
    Stream<String> c = three.source(new ListOpaque(CLICKS, 1));
    Stream<String> d = three.source(new ListOpaque("more", CLICKS, 1));
    a.merge(c).merge(d).to("events", new CollectingSink<>("events"));
    EpochalException e = assertThrows(EpochalException.class, three::build);
    assertTrue(e.getMessage().contains("2 sources") && e.getMessage().contains("has 3"), e.getMessage());
    assertTrue(!e.retryable());
  }

  @Test
  void sourcesNeedDistinctNames() {
    PipelineBuilder b = Pipeline.newBuilder("dup");
    b.source(new ListSpout<>(SHOWS));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.source(new ListSpout<>(SHOWS)));
    assertTrue(e.getMessage().contains("'list'"), e.getMessage());
  }

  @Test
  void theGuaranteeCheckSeesTheSpoutsThatReachAState() {
    PipelineBuilder b = Pipeline.newBuilder("feeding");
    Stream<String> s = b.source(new ListSpout<>(SHOWS));
    Stream<String> c = b.source(new ListOpaque(CLICKS, 1));
    s.to("shows-only", new CollectingSink<>("a"));
    Graph.Snapshot g = ((StreamView<String>) s).graph.snapshot();
    Node showsNode = ((StreamView<String>) s).node;
    Node merged = ((StreamView<String>) s.merge(c)).node;
    assertEquals(List.of("list"), GuaranteeCheck.feeding(showsNode, g.spouts()).stream()
        .map(io.epochal.spout.Spout::name).toList());
    assertEquals(List.of("list", "clicks"), GuaranteeCheck.feeding(merged, g.spouts()).stream()
        .map(io.epochal.spout.Spout::name).toList());
  }

  @Test
  void mergeRefusesAStreamOfAnotherPipeline() {
    Stream<String> s = Pipeline.newBuilder("one").source(new ListSpout<>(SHOWS));
    Stream<String> t = Pipeline.newBuilder("two").source(new ListSpout<>(SHOWS));
    assertThrows(IllegalArgumentException.class, () -> s.merge(t));
  }
}
