package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The read-fault cases of the {@link TableStoreContract} fail for the defects they exist to catch: a store that does
 * not take the read hook, one that reads a failed read as "absent", one that passes bytes through the hook without
 * decoding what comes back, and one that claims to keep bytes but never shows them; an opt-out is a visible skip.
 */
class ReadFaultCasesCanFailTest {

  /** Gets no read hook: the default {@code createStore(CommitHook, ReadHook)}. */
  private static class Unwired extends TableStoreContract {
    @Override
    protected TableStore createStore(CommitHook hook) {
      return TableStores.inMemoryBuilder().commitHook(hook).build();
    }

    @Override
    protected boolean storesBytes() {
      return false;
    }
  }

  private static class Wrapped extends TableStoreContract {
    private final ByteKeepingStore.Mode mode;

    Wrapped(ByteKeepingStore.Mode mode) {
      this.mode = mode;
    }

    @Override
    protected TableStore createStore(CommitHook commit, ReadHook read) {
      return new ByteKeepingStore(TableStores.inMemoryBuilder().commitHook(commit).readHook(read).build(), read,
          mode);
    }

    @Override
    protected TableStore createStore(CommitHook hook) {
      return createStore(hook, ReadHook.NONE);
    }
  }

  /** Wired, keeps objects, but claims to keep bytes. */
  private static final class ClaimsBytes extends TableStoreContract {
    @Override
    protected TableStore createStore(CommitHook commit, ReadHook read) {
      return TableStores.inMemoryBuilder().commitHook(commit).readHook(read).build();
    }

    @Override
    protected TableStore createStore(CommitHook hook) {
      return createStore(hook, ReadHook.NONE);
    }
  }

  private static final List<Consumer<TableStoreContract>> UNREADABLE_STORE_CASES = List.of(
      TableStoreContract::shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing,
      TableStoreContract::shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable,
      TableStoreContract::shouldFailAOneOffLookupWhoseReadFails,
      TableStoreContract::shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch,
      TableStoreContract::shouldNotStartOverWhenTheCheckpointCannotBeRead);

  private static final List<Consumer<TableStoreContract>> DAMAGED_BYTES_CASES = List.of(
      TableStoreContract::shouldRefuseAStoredRowWithAnyBitFlipped,
      TableStoreContract::shouldRefuseATruncatedStoredRow,
      TableStoreContract::shouldRefuseGarbageInPlaceOfAStoredRow,
      TableStoreContract::shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch,
      TableStoreContract::shouldNotStartOverWhenTheCheckpointBytesAreDamaged);

  private static AssertionFailedError fails(TableStoreContract contract, Consumer<TableStoreContract> test) {
    try {
      return assertThrows(AssertionFailedError.class, () -> test.accept(contract));
    } finally {
      contract.closeStores();
    }
  }

  @Test
  void shouldFailEveryUnreadableStoreCaseOfAStoreThatDoesNotTakeTheReadHook() {
    for (Consumer<TableStoreContract> test : UNREADABLE_STORE_CASES) {
      AssertionFailedError e = fails(new Unwired(), test);
      assertTrue(e.getMessage().contains("createStore(CommitHook, ReadHook)"), e.getMessage());
    }
    AssertionFailedError e = fails(new Unwired(), TableStoreContract::shouldNameTheTableOfEachReadToTheReadHook);
    assertTrue(e.getMessage().contains("createStore(CommitHook, ReadHook)"), e.getMessage());
  }

  @Test
  void shouldFailEveryUnreadableStoreCaseOfAStoreThatReadsAFailedReadAsAbsent() {
    for (Consumer<TableStoreContract> test : UNREADABLE_STORE_CASES) {
      fails(new Wrapped(ByteKeepingStore.Mode.ABSENT_ON_ERROR), test);
    }
  }

  @Test
  void shouldFailEveryDamagedBytesCaseOfAStoreThatDoesNotDecodeWhatTheHookReturns() {
    for (Consumer<TableStoreContract> test : DAMAGED_BYTES_CASES) {
      AssertionFailedError e = fails(new Wrapped(ByteKeepingStore.Mode.IGNORING_THE_BYTES), test);
      assertTrue(e.getMessage().contains("damaged") || e.getMessage().contains("absent"), e.getMessage());
    }
  }

  @Test
  void shouldFailAStoreThatClaimsToKeepBytesButNeverPassesThemToTheHook() {
    AssertionFailedError e = fails(new ClaimsBytes(),
        TableStoreContract::shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook);
    assertTrue(e.getMessage().contains("storesBytes()"), e.getMessage());
    fails(new ClaimsBytes(), TableStoreContract::shouldRefuseAStoredRowWithAnyBitFlipped);
  }

  @Test
  void shouldFailAStoreThatPassesBytesButSaysItKeepsNone() {
    TableStoreContract contract = new Wrapped(ByteKeepingStore.Mode.CHECKED) {
      @Override
      protected boolean storesBytes() {
        return false;
      }
    };
    AssertionFailedError e = fails(contract,
        TableStoreContract::shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook);
    assertTrue(e.getMessage().contains("storesBytes()"), e.getMessage());
  }

  @Test
  void shouldSkipTheReadFaultCasesVisiblyOnAnExplicitOptOut() {
    TableStoreContract optedOut = new Unwired() {
      @Override
      protected Optional<String> readFaultsOptOut() {
        return Optional.of("the store reads through a vendor SDK without hooks");
      }
    };
    for (Consumer<TableStoreContract> test : UNREADABLE_STORE_CASES) {
      TestAbortedException e = assertThrows(TestAbortedException.class, () -> test.accept(optedOut));
      assertTrue(e.getMessage().contains("vendor SDK"), e.getMessage());
    }
    optedOut.closeStores();
  }
}
