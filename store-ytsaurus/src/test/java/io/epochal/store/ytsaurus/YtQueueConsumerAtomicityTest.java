package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The consumer advance commits atomically with the states and the checkpoint: a worker that dies after its epoch
 * commit sent the state rows and {@code advance_queue_consumer}, but before {@code commit_transaction} landed (or
 * whose commit YTsaurus refuses), leaves the consumer, the counts and the checkpoint consistent — nothing of the batch
 * is visible — and the restarted pipeline then counts exactly. Against the {@link YtProtocolDouble} (a test double).
 * The testkit's fault points all fire before the advance is sent, so these failures are injected at the double's
 * {@code commit_transaction}.
 */
class YtQueueConsumerAtomicityTest {
  private static YtProtocolDouble yt;

  /** How the commit of the batch's tablet transaction fails, after its rows and advances were sent. */
  enum CommitFailure {
    /** The worker dies: the commit request never reaches the proxy (the transaction times out there). */
    NEVER_SENT,
    /** YTsaurus refuses the commit: a row lock conflict with an overlapping transaction. */
    ROW_CONFLICT,
    /** YTsaurus refuses the commit: the lease transaction is gone (the worker was taken over). */
    LEASE_GONE,
    /** The commit lands but its reply is lost: the coordinator finds it committed and goes on. */
    REPLY_LOST
  }

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(3);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  private static Pipeline pipeline(String name, YtTableStore store, QueueWorld w, int maxAttempts) {
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(5).consumer(w.consumer)
        .advanceConsumerIn(store, name).build();
    PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints)
        .retryPolicy(new RetryPolicy(maxAttempts, Duration.ZERO, Duration.ZERO));
    b.source(YtQueueSpouts.transactional(cfg)).flatMap(s -> Arrays.asList(s.split(" "))).groupBy(x -> x)
        .persistentAggregate("counts", TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    return b.build();
  }

  private static void assertConsistent(QueueWorld w, YtTableStore store, String name, String when) {
    Map<Integer, Long> ends = QueueWorld.committedEnds(store, name);
    assertEquals(ends, w.consumerOffsets(), when + ": consumer offsets vs the committed checkpoint");
    assertEquals(w.recount(ends, 3), QueueWorld.counts(store, name + "/counts", true),
        when + ": counts vs the rows below " + ends);
  }

  @ParameterizedTest
  @EnumSource(CommitFailure.class)
  void aWorkerDyingBetweenItsAdvanceAndTheCommitLeavesEverythingConsistent(CommitFailure failure) {
    QueueWorld w = new QueueWorld(yt, 3);
    w.append(0, 0, 12);
    w.append(1, 0, 9);
    w.append(2, 0, 3);
    String name = "atomic-" + failure.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    try (YtTableStore store = w.store().build()) {
      try (Pipeline first = pipeline(name, store, w, 1)) {
        first.run(1);
        assertConsistent(w, store, name, "after batch 1");
        Map<Integer, Long> before = w.consumerOffsets();
        int advancesBefore = yt.commandCounts().getOrDefault("advance_queue_consumer", 0);
        switch (failure) {
          case NEVER_SENT -> yt.dropNextAdvancingCommit(false);
          case ROW_CONFLICT -> yt.failNextAdvancingCommit(400, YtError.of(1, "Error committing",
              new YtError(YtError.TRANSACTION_LOCK_CONFLICT, "Row lock conflict due to concurrent write",
                  Map.of(), java.util.List.of())));
          case LEASE_GONE -> yt.failNextAdvancingCommit(400, YtError.of(YtError.PREREQUISITE_CHECK_FAILED,
              "Prerequisite check failed", YtError.of(YtError.NO_SUCH_TRANSACTION, "No such transaction")));
          case REPLY_LOST -> yt.dropNextAdvancingCommit(true);
          default -> throw new AssertionError(failure);
        }
        if (failure == CommitFailure.REPLY_LOST) {
          first.run(1);
          assertEquals(2, first.lastCommittedTxid());
          assertTrue(!w.consumerOffsets().equals(before), "the landed commit advanced the consumer");
        } else {
          RuntimeException e = assertThrows(RuntimeException.class, () -> first.run(1));
          Throwable cause = e instanceof BatchFailedException ? e.getCause() : e;
          switch (failure) {
            case NEVER_SENT -> assertInstanceOf(YtCommitOutcomeUnknownException.class, cause);
            case ROW_CONFLICT -> assertInstanceOf(CommitConflictException.class, cause);
            default -> assertInstanceOf(LeaseLostException.class, cause);
          }
          assertEquals(before, w.consumerOffsets(), "the advance of the failed commit is not visible");
        }
        assertTrue(yt.commandCounts().getOrDefault("advance_queue_consumer", 0) > advancesBefore,
            "the failed commit had sent its advances");
        assertConsistent(w, store, name, "after the failed commit");
      }
    }
    try (YtTableStore restarted = w.store().build()) { // a new process
      try (Pipeline p = pipeline(name, restarted, w, 5)) {
        p.runUntilIdle();
      }
      assertConsistent(w, restarted, name, "after the restart");
      assertEquals(Map.of(0, 12L, 1, 9L, 2, 3L), w.consumerOffsets());
      assertEquals(w.recount(null, 3), QueueWorld.counts(restarted, name + "/counts", true));
    }
  }
}
