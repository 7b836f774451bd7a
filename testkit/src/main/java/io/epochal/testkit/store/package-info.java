/**
 * The table-store contract: {@link io.epochal.testkit.store.TableStoreContract}, the abstract JUnit 5 suite that
 * every {@link io.epochal.store.table.TableStore} passes (the in-memory, RocksDB and YTsaurus stores, and yours), and
 * the forwarding bases {@link io.epochal.testkit.store.ForwardingTableStore} and
 * {@link io.epochal.testkit.store.ForwardingStoreTransaction} for store wrappers.
 *
 * @since 0.1.0
 */
package io.epochal.testkit.store;
