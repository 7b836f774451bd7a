package io.epochal.store.table;

import io.epochal.api.Evolving;

/**
 * What a {@link TableStore} guarantees beyond the basic operations. The coordinator picks the commit protocol from
 * them: the epoch protocol (every state row of a batch and the checkpoint in one store transaction) needs
 * {@code atomicMultiTableCommit}; otherwise Trident's per-key protocol is used.
 *
 * <p>Immutable and thread-safe.
 *
 * @param atomicMultiTableCommit whether {@link StoreTransaction#commit()} applies the writes to all tables of the
 *     transaction atomically (all or nothing, even if the process dies mid-commit); when false, a commit is atomic
 *     per table only and a failed multi-table commit may leave some tables written
 * @param fencing whether a transaction begun under a {@link Lease} fails its commit, changing nothing, once the
 *     lease was taken over ({@link TableStore#acquireLease})
 * @param sharedAcrossHosts whether processes on other hosts reach this same store (a database server, a YTsaurus
 *     cluster), so that work moved to another machine finds its committed state there; false for embedded stores
 *     (in-memory, a RocksDB directory), which a distributed runner refuses for work that may move (since 0.4.0)
 * @since 0.1.0
 */
@Evolving
public record StoreCapabilities(boolean atomicMultiTableCommit, boolean fencing, boolean sharedAcrossHosts) {

  /**
   * Describes a store only its own process reaches ({@code sharedAcrossHosts} false).
   *
   * @param atomicMultiTableCommit whether a commit applies the writes to all tables of the transaction atomically
   * @param fencing whether a transaction begun under a lease that was taken over fails its commit
   */
  public StoreCapabilities(boolean atomicMultiTableCommit, boolean fencing) {
    this(atomicMultiTableCommit, fencing, false);
  }

  /**
   * Atomic multi-table commit and fencing in one process: what the in-memory and RocksDB stores offer.
   *
   * @return capabilities with {@code atomicMultiTableCommit} and {@code fencing} true, {@code sharedAcrossHosts} false
   */
  public static StoreCapabilities full() {
    return new StoreCapabilities(true, true, false);
  }

  /**
   * Atomic multi-table commit and fencing, reached from every host: PostgreSQL, pinned-proxy YTsaurus.
   *
   * @return capabilities with all three guarantees true
   */
  public static StoreCapabilities shared() {
    return new StoreCapabilities(true, true, true);
  }

  @Override
  public String toString() {
    return "StoreCapabilities[atomicMultiTableCommit=" + atomicMultiTableCommit + ", fencing=" + fencing
        + ", sharedAcrossHosts=" + sharedAcrossHosts + "]";
  }
}
