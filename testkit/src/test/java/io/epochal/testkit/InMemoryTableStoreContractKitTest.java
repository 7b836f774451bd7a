package io.epochal.testkit;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;

/**
 * The contract kit by inheritance, over the in-memory table store (atomic multi-table commit: both spouts, both
 * protocols' replay checks run). What a user's store test looks like.
 */
class InMemoryTableStoreContractKitTest extends TableStoreContractKit {

  @Override
  protected TableStore createStore(CommitHook hook) {
    return TableStores.inMemoryBuilder().commitHook(hook).build();
  }

  @Override
  protected boolean supportsReopen() {
    return false;
  }
}
