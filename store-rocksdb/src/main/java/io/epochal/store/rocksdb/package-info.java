/**
 * The embedded, durable table store on RocksDB, the default store of Epochal pipelines.
 *
 * <p>Entry point: {@link io.epochal.store.rocksdb.RocksDbTableStore#builder(java.nio.file.Path)}, configured with a
 * {@link io.epochal.store.rocksdb.SyncPolicy}. The store implements {@link io.epochal.store.table.TableStore} with
 * one column family per table, one atomic {@code WriteBatch} per store transaction (so the epoch protocol writes
 * every dirty state row, the spout metadata and the committed txid of an epoch at once), in-memory write-write
 * conflict detection, and lease fencing that holds across processes sharing a state directory
 * ({@link io.epochal.store.rocksdb.RocksDbTableStore#takeOverLease}).
 *
 * <p>Nothing is silently wrong: stored rows are checksummed, a lookup never reads an unreadable row as missing, a
 * directory that lost data or metadata is refused instead of re-created, and fencing survives deleted or edited files
 * (see {@link io.epochal.store.rocksdb.RocksDbTableStore}). {@link io.epochal.store.rocksdb.RocksDbTableStore#destroy}
 * deletes a directory's state only when no process has it open;
 * {@link io.epochal.store.rocksdb.RocksDbTableStore.Builder#readOnly} reads a directory without writing to it.
 *
 * <p>Typical use, with the epoch protocol chosen automatically:
 * <pre>{@code
 * RocksDbTableStore store = RocksDbTableStore.builder(Path.of("/var/lib/app/state")).build();
 * TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
 * Pipeline p = Pipeline.newBuilder("wordcount").checkpointStore(checkpoints)...build();
 * }</pre>
 *
 * <p>Everything under {@code io.epochal.store.rocksdb.internal} is implementation and may change without notice.
 *
 * @since 0.1.0
 */
package io.epochal.store.rocksdb;
