package io.epochal.store.table;

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
