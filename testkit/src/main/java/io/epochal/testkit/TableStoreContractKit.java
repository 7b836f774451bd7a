package io.epochal.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.api.Evolving;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.TableStoreContract;
import org.junit.jupiter.api.Test;

/**
 * The table-store contract for a user's own {@link TableStore}, by inheritance (like Kafka's
 * {@code AbstractKeyValueStoreTest}): every test of the {@link TableStoreContract} (lookups, visibility,
 * atomic multi-table commit, conflicts, leases and fencing, schemas, persistence across reopen), plus replay checks
 * that run whole exactly-once pipelines over the store through every {@link FaultPoint}, failed and crashed.
 *
 * <pre>{@code
 * class MyTableStoreTest extends TableStoreContractKit {
 *   @TempDir Path dir;
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit, ReadHook read) {
 *     // call commit.beforeTableWrite(path) in every commit, per table; read.beforeRead(path) on every read
 *     return MyTableStore.open(dir, commit, read);
 *   }
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit) {
 *     return createStore(commit, ReadHook.NONE);
 *   }
 * }
 * }</pre>
 *
 * <p>Without inheritance, annotate one method with {@link TableStoreContractTest} instead. A subclass implements
 * {@link #createStore}, and overrides {@link #supportsReopen()}, {@link #tablePath(String)}, {@link #storesBytes()}
 * and the two-hook {@code createStore} as for {@link TableStoreContract}. The replay checks place their tables under
 * {@code tablePath("replay/")}, give every run its own pipeline, and call {@code createStore} once per run (closing
 * the store after it), so a store that reopens one location serves them as well as one that starts empty.
 *
 * @since 0.1.0
 */
@Evolving
public abstract class TableStoreContractKit extends TableStoreContract {

  /** A transactional spout into both txid-carrying layouts: exactly-once on either commit protocol. */
  @Test
  public void shouldCountExactlyOnceUnderEveryFaultWithATransactionalSpout() {
    TableStoreReplayChecks.run(this::createStore, supportsReopen(), tablePath("replay/"), SpoutKind.TRANSACTIONAL,
        StateKind.TRANSACTIONAL);
    TableStoreReplayChecks.run(this::createStore, supportsReopen(), tablePath("replay/"), SpoutKind.TRANSACTIONAL, StateKind.OPAQUE);
  }

  /**
   * A re-cutting opaque spout into both layouts: exactly-once only on the epoch protocol, so only for stores that
   * declare atomic multi-table commit.
   */
  @Test
  public void shouldCountExactlyOnceUnderEveryFaultWithAnOpaqueSpoutOnTheEpochProtocol() {
    TableStore probe = createStore(io.epochal.store.table.CommitHook.NONE);
    boolean atomic;
    try {
      atomic = probe.capabilities().atomicMultiTableCommit();
    } finally {
      probe.close();
    }
    assumeTrue(atomic, "the store does not declare atomic multi-table commit (the epoch protocol)");
    TableStoreReplayChecks.run(this::createStore, supportsReopen(), tablePath("replay/"), SpoutKind.OPAQUE, StateKind.TRANSACTIONAL);
    TableStoreReplayChecks.run(this::createStore, supportsReopen(), tablePath("replay/"), SpoutKind.OPAQUE, StateKind.OPAQUE);
  }
}
