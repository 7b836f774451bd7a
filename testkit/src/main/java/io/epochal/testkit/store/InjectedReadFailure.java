package io.epochal.testkit.store;

import io.epochal.errors.StoreException;
import io.epochal.store.table.ReadHook;

/** What the contract's {@link ReadHook} throws from {@code beforeRead}: a store failure, retryable. Immutable. */
final class InjectedReadFailure extends StoreException {
  private static final long serialVersionUID = 1L;

  InjectedReadFailure(String tablePath) {
    super("injected by the table-store contract: table " + tablePath + " cannot be read");
  }
}
