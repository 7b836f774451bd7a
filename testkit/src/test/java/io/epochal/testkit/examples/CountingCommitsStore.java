package io.epochal.testkit.examples;

import io.epochal.store.table.Lease;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.ForwardingStoreTransaction;
import io.epochal.testkit.store.ForwardingTableStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A correct wrapper written with the kit's forwarding bases: it counts commits and forwards everything else (a dozen
 * lines instead of a hundred of hand-written forwarding).
 */
final class CountingCommitsStore extends ForwardingTableStore {
  final AtomicLong commits = new AtomicLong();

  CountingCommitsStore(TableStore inner) {
    super(inner);
  }

  @Override
  public StoreTransaction begin() {
    return counted(super.begin());
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return counted(super.begin(lease));
  }

  private StoreTransaction counted(StoreTransaction tx) {
    return new ForwardingStoreTransaction(tx) {
      @Override
      public void commit() {
        super.commit();
        commits.incrementAndGet();
      }
    };
  }
}
