package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.errors.SinkPublishException;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.sink.OutboxSink;
import io.epochal.sink.Publisher;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The durable outbox: outputs of a committed batch are kept in the checkpoint until the next commit, and a pipeline
 * built after a crash anywhere between the commit and the publication publishes them exactly once.
 */
class OutboxRecoveryTest {
  private static final List<List<String>> BATCHES = List.of(List.of("a", "b"), List.of("c"), List.of("d", "e", "f"));

  /** Simulated death of the process. */
  private static final class Crash extends Error {
    Crash(String where) {
      super("simulated crash " + where);
    }
  }

  /** The external system: what it published per (partition, txid); may fail or die at one txid. */
  private static final class ExternalLog implements Publisher<String> {
    final Map<Integer, Long> last = new HashMap<>();
    final List<String> published = new ArrayList<>();
    long failAt = -1;
    int failures;
    long dieAfterPublishing = -1;

    @Override
    public long lastPublished(int partition) {
      return last.getOrDefault(partition, 0L);
    }

    @Override
    public void publish(int partition, long txid, List<String> records) {
      if (txid == failAt && failures > 0) {
        failures--;
        throw new EpochalException("broker unreachable", null, true, ErrorContext.NONE);
      }
      assertTrue(txid > lastPublished(partition), "publish of txid " + txid + " at or below the last published");
      published.add(txid + ":" + partition + ":" + records);
      last.put(partition, txid);
      if (txid == dieAfterPublishing) {
        throw new Crash("after publishing txid " + txid);
      }
    }
  }

  private static Pipeline build(CheckpointStore store, ExternalLog external, int partitions) {
    PipelineBuilder b = Pipeline.newBuilder("outbox").checkpointStore(store).partitions(partitions)
        .retryPolicy(RetryPolicy.immediate(3)).sleeper(d -> { });
    b.source(new ListSpout<>(BATCHES)).map(String::toUpperCase).to("out", OutboxSink.of(external, Codecs.strings()));
    return b.build();
  }

  private static List<String> referenceRun(int partitions) {
    ExternalLog external = new ExternalLog();
    try (Pipeline p = build(new InMemoryCheckpointStore(), external, partitions)) {
      p.runUntilIdle();
    }
    return external.published;
  }

  @Test
  void theOutputsOfABatchCommittedJustBeforeACrashArePublishedByTheNextPipeline() {
    for (int partitions : new int[] {1, 3}) {
      InMemoryCheckpointStore store = new InMemoryCheckpointStore();
      ExternalLog external = new ExternalLog();
      try (Pipeline p = build(new EngineTesting.FailingCommit(store, 2, true, () -> new Crash("after the commit of txid 2 landed")), external, partitions)) {
        assertThrows(Crash.class, p::runUntilIdle);
      }
      assertEquals(2, store.load("outbox").committedTxid());
      assertFalse(store.load("outbox").outbox().isEmpty(), "txid 2's outputs are kept in the checkpoint");
      assertTrue(external.published.stream().noneMatch(s -> s.startsWith("2:")), "died before publishing txid 2");
      try (Pipeline p = build(store, external, partitions)) {
        p.runUntilIdle();
        assertEquals(3, p.lastCommittedTxid());
      }
      assertEquals(referenceRun(partitions), external.published, partitions + " partition(s)");
    }
  }

  @Test
  void outputsPublishedJustBeforeACrashAreNotPublishedAgain() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    ExternalLog external = new ExternalLog();
    external.dieAfterPublishing = 2;
    try (Pipeline p = build(store, external, 1)) {
      assertThrows(Crash.class, p::runUntilIdle);
    }
    external.dieAfterPublishing = -1;
    assertEquals(2, store.load("outbox").outbox().get(0).txid(), "still in the outbox: the next commit drops it");
    try (Pipeline p = build(store, external, 1)) {
      p.runUntilIdle();
    }
    assertEquals(referenceRun(1), external.published);
  }

  @Test
  void aPublicationFailureStopsThePipelineAndTheNextPipelinePublishesFirst() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    ExternalLog external = new ExternalLog();
    external.failAt = 2;
    external.failures = 1;
    try (Pipeline p = build(store, external, 1)) {
      SinkPublishException e = assertThrows(SinkPublishException.class, p::runUntilIdle);
      assertEquals("out", e.sink());
      assertEquals(java.util.OptionalLong.of(2), e.context().txid());
      assertEquals(java.util.Optional.of("outbox"), e.context().pipeline());
      assertTrue(e.retryable(), "an unreachable broker is transient");
      assertEquals(2, p.lastCommittedTxid(), "the batch stays committed");
      assertThrows(IllegalStateException.class, p::runUntilIdle, "a stopped pipeline does not go on");
    }
    try (Pipeline p = build(store, external, 1)) {
      p.runUntilIdle();
    }
    assertEquals(referenceRun(1), external.published);
  }

  @Test
  void aFailureToPublishWhatWasRecoveredFailsTheRunAndLosesNothing() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    ExternalLog external = new ExternalLog();
    try (Pipeline p = build(new EngineTesting.FailingCommit(store, 1, true, () -> new Crash("after the commit of txid 1 landed")), external, 1)) {
      assertThrows(Crash.class, p::runUntilIdle);
    }
    external.failAt = 1;
    external.failures = 1;
    try (Pipeline p = build(store, external, 1)) {
      SinkPublishException e = assertThrows(SinkPublishException.class, p::runUntilIdle);
      assertEquals(java.util.OptionalLong.of(1), e.context().txid());
      assertEquals(1, p.lastCommittedTxid(), "nothing committed over unpublished outputs");
    }
    try (Pipeline p = build(store, external, 1)) {
      p.runUntilIdle();
    }
    assertEquals(referenceRun(1), external.published);
  }

  @Test
  void theCheckpointKeepsOnlyTheLastCommittedBatchsOutputs() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    ExternalLog external = new ExternalLog();
    try (Pipeline p = build(store, external, 2)) {
      p.run(2);
      List<OutboxEntry> outbox = store.load("outbox").outbox();
      assertEquals(List.of(2L), outbox.stream().map(OutboxEntry::txid).distinct().toList());
      assertEquals(List.of("out"), outbox.stream().map(OutboxEntry::sink).distinct().toList());
    }
  }

  @Test
  void aSinkThatNeedsTheOutboxIsRefusedOnAStoreWithoutOne() {
    CheckpointStore plain = new CheckpointStore() {
      final InMemoryCheckpointStore real = new InMemoryCheckpointStore();

      @Override
      public Checkpoint load(String pipeline) {
        return real.load(pipeline);
      }

      @Override
      public void recordPending(String pipeline, long txid, byte[] metadata) {
        real.recordPending(pipeline, txid, metadata);
      }

      @Override
      public void commit(String pipeline, long txid, byte[] metadata) {
        real.commit(pipeline, txid, metadata);
      }

      @Override
      public String describe() {
        return "a store without outbox";
      }
    };
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class,
        () -> build(plain, new ExternalLog(), 1));
    assertTrue(e.getMessage().contains("'out'") && e.getMessage().contains("a store without outbox"),
        e.getMessage());
  }
}
