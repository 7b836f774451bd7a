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
