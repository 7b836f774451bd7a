package io.epochal.testkit.store;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixture of one {@link TableStoreContract} instance (JUnit makes one per test method), shared by its topic
 * cases: opens every store through the contract's hooks with the contract's {@link ContractReadHook}, and closes
 * them after the test. Not thread-safe: a test opens its stores from its own thread.
 */
final class ContractFixture {
  private final TableStoreContract contract;
  private final List<TableStore> stores = new ArrayList<>();
  private final ContractReadHook reads = new ContractReadHook();

  ContractFixture(TableStoreContract contract) {
    this.contract = contract;
  }

  /** @return the contract whose hooks ({@code createStore}, {@code tablePath}, ...) this fixture calls */
  TableStoreContract contract() {
    return contract;
  }

  /** @return the read hook every store of this test gets */
  ContractReadHook reads() {
    return reads;
  }

  /** Opens (or reopens) the store under test with {@code hook} and the contract's read hook. */
  TableStore open(CommitHook hook) {
    TableStore s = contract.createStore(hook, reads);
    stores.add(s);
    return s;
  }

  /** Closes every store opened so far, ignoring those the test already closed or broke. */
  void closeStores() {
    for (TableStore s : stores) {
      try {
        s.close();
      } catch (RuntimeException e) {
        // already closed or broken by the test: nothing to do
      }
    }
  }
}
