package io.epochal.testkit;

import io.epochal.store.table.Lease;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.ForwardingStoreTransaction;
import io.epochal.testkit.store.ForwardingTableStore;

/**
 * The table store under a checkpoint store, seen by the lease points ({@link FaultInjector#withLeaseFaults}):
 * remembers the lease the checkpoint store takes, and takes it over for a new owner before the stale worker's commit
 * or, when {@link #armed}, between its transaction's {@code begin(lease)} and {@code commit()}. Thread-safe: its
 * fields are volatile, and the injector arms it for one commit at a time.
 */
final class LeaseFaultStore extends ForwardingTableStore {
  private final ReplayTimeline timeline;
  volatile Lease lease;
  volatile long armed;
  volatile String leaseName = "?";
  volatile String staleOwner = "?";
  volatile String newOwner = "?";
  volatile String when = "";

  LeaseFaultStore(TableStore delegate, ReplayTimeline timeline) {
    super(delegate);
    this.timeline = timeline;
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    Lease l = super.acquireLease(name, owner);
    lease = l;
    return l;
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return new ForwardingStoreTransaction(super.begin(lease)) {
      @Override
      public void commit() {
        long txid = armed;
        if (txid != 0) {
          armed = 0;
          takeOver(txid, "between begin and commit");
        }
        super.commit();
      }
    };
  }

  void takeOver(long txid, String when) {
    Lease stale = lease;
    String successor = stale.owner() + "-successor";
    delegate().acquireLease(stale.name(), successor);
    this.leaseName = "lease '" + stale.name() + "'";
    this.staleOwner = stale.owner();
    this.newOwner = successor;
    this.when = when;
    timeline.leaseTaken(txid, successor + " took lease '" + stale.name() + "' over from " + stale.owner() + " "
        + when);
  }
}
