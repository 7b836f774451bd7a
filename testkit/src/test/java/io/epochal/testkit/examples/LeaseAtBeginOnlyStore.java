package io.epochal.testkit.examples;

import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.Lease;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.ForwardingTableStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A wrong table store: it checks a writer's lease when the transaction begins, never at commit, so a worker whose
 * lease is taken over while its transaction is open (a GC pause, a slow network) still commits: a zombie write.
 */
final class LeaseAtBeginOnlyStore extends ForwardingTableStore {
  private final Map<String, Long> generations = new ConcurrentHashMap<>();

  LeaseAtBeginOnlyStore(TableStore inner) {
    super(inner);
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    Lease lease = super.acquireLease(name, owner);
    generations.merge(name, lease.generation(), Math::max);
    return lease;
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    long current = generations.getOrDefault(lease.name(), lease.generation());
    if (current != lease.generation()) {
      throw new LeaseLostException(lease + " was taken over (generation " + current + ")");
    }
    return super.begin(); // the bug: the transaction itself is not fenced, so its commit never checks again
  }
}
