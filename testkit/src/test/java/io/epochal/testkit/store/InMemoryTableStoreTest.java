package io.epochal.testkit.store;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;

/** The {@link TableStoreContract} over {@link TableStores#inMemory()} (atomic multi-table commit, fencing). */
class InMemoryTableStoreTest extends TableStoreContract {

  @Override
  protected TableStore createStore(CommitHook hook) {
    return TableStores.inMemoryBuilder().commitHook(hook).build();
  }

  @Override
  protected boolean supportsReopen() {
    return false;
  }
}
