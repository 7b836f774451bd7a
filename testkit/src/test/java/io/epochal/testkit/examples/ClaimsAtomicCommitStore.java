package io.epochal.testkit.examples;

import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.ForwardingTableStore;

/**
 * A wrong table store: it declares atomic multi-table commits, so the pipeline runs it on the epoch protocol, but
 * the store under it commits table by table (a failure mid-commit keeps the tables written before it). Written with
 * the kit's {@link ForwardingTableStore}: only the lie is code.
 */
final class ClaimsAtomicCommitStore extends ForwardingTableStore {
  ClaimsAtomicCommitStore(TableStore perTable) {
    super(perTable);
  }

  @Override
  public StoreCapabilities capabilities() {
    return new StoreCapabilities(true, delegate().capabilities().fencing());
  }
}
