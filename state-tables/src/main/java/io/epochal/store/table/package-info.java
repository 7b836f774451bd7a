/**
 * The table-store SPI, modelled on YTsaurus sorted dynamic tables, and the map-state layouts over it.
 *
 * <p>Entry points: {@link io.epochal.store.table.TableStores} (the in-memory store),
 * {@link io.epochal.store.table.TableStore} ({@code openTable}, {@code begin}, {@code acquireLease}),
 * {@link io.epochal.store.table.StoreTransaction} (lookup, scan, upsert, delete, atomic commit),
 * {@link io.epochal.store.table.TableSchema}, {@link io.epochal.store.table.TableKey} and
 * {@link io.epochal.store.table.Row}. Every table's first key column is {@code hash}, YTsaurus' {@code farm_hash} of
 * the other key columns, computed by {@link io.epochal.store.table.TableKey}, never passed by callers.
 *
 * <p>State on tables: {@link io.epochal.store.table.TableCheckpointStore} (the coordinator's checkpoint in a table,
 * and the epoch buffer of the atomic epoch protocol), {@link io.epochal.store.table.TableStates} (map states over
 * tables), {@link io.epochal.store.table.KeyCodec} (keys to key columns) and
 * {@link io.epochal.store.table.CellLayout} (stored cells to value columns).
 */
package io.epochal.store.table;
