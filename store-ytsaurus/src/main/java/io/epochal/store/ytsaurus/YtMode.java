package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * How {@link YtTableStore} commits an epoch over the HTTP proxy API.
 *
 * @since 0.1.0
 */
@Evolving
public enum YtMode {
  /**
   * One tablet transaction per store transaction, every call of which goes to one heavy HTTP proxy (found through
   * {@code /hosts}); one {@code insert_rows}/{@code delete_rows} per table; {@code commit_transaction} with the lease's
   * master transaction as prerequisite. Atomic across tables, write-write conflicts detected by YTsaurus, and fenced:
   * a commit after the lease was taken over fails with {@link io.epochal.errors.LeaseLostException}. Needs direct
   * network access to the heavy proxies (not only to a load balancer).
   */
  PINNED,
  /**
   * Fallback for balancer-only access: all logical tables and their schemas share one sorted dynamic table keyed
   * {@code (hash, state_id, key)}; an epoch is ONE {@code insert_rows} (deletes as tombstones), atomic across logical
   * tables. <b>Weaker:</b> conflict detection is a client-side check right before the write, and fencing is
   * self-fencing (a lease ping right before the write): a writer paused between that check and its write can still
   * write after losing its lease. Logged at start.
   */
  SINGLE_TABLE
}
