package io.epochal.testkit;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;

/**
 * The contract kit by inheritance, over the in-memory table store (atomic multi-table commit: both spouts, both
 * protocols' replay checks run). What a user's store test looks like.
 */
class InMemoryTableStoreContractKitTest extends TableStoreContractKit {

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return TableStores.inMemoryBuilder().commitHook(commit).readHook(read).build();
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }

  /** The in-memory store keeps rows as objects: it has no stored bytes to pass through the read hook. */
  @Override
  protected boolean storesBytes() {
    return false;
  }

  @Override
  protected boolean supportsReopen() {
    return false;
  }
}
