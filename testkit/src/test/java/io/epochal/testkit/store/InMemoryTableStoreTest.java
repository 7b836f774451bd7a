package io.epochal.testkit.store;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;

/** The {@link TableStoreContract} over {@link TableStores#inMemory()} (atomic multi-table commit, fencing). */
class InMemoryTableStoreTest extends TableStoreContract {

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
