package io.epochal.testkit.store;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;

/**
 * The whole {@link TableStoreContract}, damaged-bytes cases included, over a store that keeps rows as checksummed
 * bytes ({@link ByteKeepingStore} in its checked mode): the byte cases can be passed, by a store that checks what it
 * reads.
 */
class ByteKeepingStoreContractTest extends TableStoreContract {

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return new ByteKeepingStore(TableStores.inMemoryBuilder().commitHook(commit).readHook(read).build(), read,
        ByteKeepingStore.Mode.CHECKED);
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }

  @Override
  protected boolean supportsReopen() {
    return false;
  }
}
