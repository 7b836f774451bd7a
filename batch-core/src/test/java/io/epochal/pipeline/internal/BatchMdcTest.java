package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.state.StateKind;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The MDC names the pipeline and the batch's txid on every thread that works on a batch, pool threads too. */
class BatchMdcTest {
  private record Seen(String phase, String thread, String pipeline, String txid, long expectedTxid) {
  }

  @Test
  void everyThreadWorkingOnABatchNamesItsPipelineAndTxid() {
    assertTrue(MDC.getMDCAdapter() instanceof org.slf4j.helpers.BasicMDCAdapter,
        "the test needs MdcSimpleProvider (surefire's slf4j.provider) for a working MDC: " + MDC.getMDCAdapter());
    int batches = 12;
    List<List<Integer>> input = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      List<Integer> records = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        records.add(b * 1000 + i); // record r belongs to txid r / 1000 + 1
      }
      input.add(records);
    }
    List<Seen> seen = new CopyOnWriteArrayList<>();
    PipelineBuilder b = Pipeline.newBuilder("mdc-pipeline")
        .checkpointStore(new InMemoryCheckpointStore())
        .threads(2)
        .partitions(2)
        .maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(1))
        .sleeper(d -> { });
    b.source(new EngineTesting.ListSpout<>(input))
        .map(r -> {
          seen.add(new Seen("process", Thread.currentThread().getName(), MDC.get(Pipeline.MDC_PIPELINE),
              MDC.get(Pipeline.MDC_TXID), r / 1000 + 1));
          return r;
        })
        .partitionPersist("log", new EngineTesting.LogStates(StateKind.TRANSACTIONAL), (state, attempt, records) -> {
          for (Integer r : records) {
            assertEquals(attempt.txid(), r / 1000 + 1, "records of another batch in this update");
          }
          seen.add(new Seen("commit", Thread.currentThread().getName(), MDC.get(Pipeline.MDC_PIPELINE),
              MDC.get(Pipeline.MDC_TXID), attempt.txid()));
        });

    MDC.put("caller", "kept");
    try (Pipeline p = b.build()) {
      assertEquals(batches, p.runUntilIdle().batches());
      assertEquals("kept", MDC.get("caller"), "the caller's own MDC is kept");
      assertNull(MDC.get(Pipeline.MDC_PIPELINE), "no pipeline left in the caller's MDC after the run");
      assertNull(MDC.get(Pipeline.MDC_TXID), "no txid left in the caller's MDC after the run");
    } finally {
      MDC.remove("caller");
    }

    String caller = Thread.currentThread().getName();
    Set<String> where = new TreeSet<>();
    Map<String, Long> perPhase = new HashMap<>();
    for (Seen x : seen) {
      where.add(x.phase() + "@" + (x.thread().equals(caller) ? "caller" : "pool"));
      perPhase.merge(x.phase(), 1L, Long::sum);
      assertEquals("mdc-pipeline", x.pipeline(), x::toString);
      assertEquals(Long.toString(x.expectedTxid()), x.txid(), x::toString);
    }
    assertEquals(batches * 50L, perPhase.get("process"));
    assertTrue(where.contains("process@pool"), () -> "the process phase ran on the pool: " + where);
    assertTrue(where.contains("commit@pool"), () -> "partitions committed on the pool: " + where);
  }
}
