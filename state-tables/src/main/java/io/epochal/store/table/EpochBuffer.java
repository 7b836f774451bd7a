package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.state.Staging;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The writes of one pipeline's current epoch, for state implementations that write tables of a
 * {@link TableCheckpointStore}'s store (the table-backed map states, Flow-style state clients): the staging of the
 * epoch the engine opened ({@code TableCheckpointStore.openEpoch}), found by a state as
 * {@code epoch.staging(EpochBuffer.class)} in the epoch given to {@code begin(epoch)}, and as
 * {@code context.staging(EpochBuffer.class)} when the state is made (to open and claim its table on the pipeline's store).
 *
 * <p>Under {@link CommitProtocol#EPOCH} writes are buffered until {@link TableCheckpointStore#commit} writes them, with
 * the checkpoint, in one store transaction under the pipeline's lease; {@link TableCheckpointStore#abort} drops them.
 * Under {@link CommitProtocol#PER_KEY} each {@link #write} call is applied at once as its own store transaction under
 * the lease (atomic per call).
 *
 * <p>Thread-safe: partitions of a batch write concurrently. Within an epoch the last write of a key wins. Null
 * arguments are rejected with {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@Evolving
public interface EpochBuffer extends Staging {

  /** @return the pipeline whose epoch this is */
  @Override
  String pipeline();

  /** @return the protocol in force */
  CommitProtocol protocol();

  /** @return true under {@link CommitProtocol#EPOCH}: the rows commit with the checkpoint, in one store transaction */
  @Override
  default boolean atomic() {
    return protocol() == CommitProtocol.EPOCH;
  }

  /** @return the table store whose tables this buffer stages rows of */
  TableStore store();

  /** @return the prefix of the tables the pipeline's states name ({@code <prefix><pipeline>/<state>}) */
  String tablePrefix();

  /**
   * Claims table {@code path} for writing by {@code claimant} (e.g. {@code "state 'counts' of pipeline 'wc'"}) in
   * the checkpoint store's one claim registry; claiming again with the same claimant is a no-op.
   *
   * @param path the path of the table to claim, as in its {@link TableSchema#path()}
   * @param claimant who writes the table, in words that the error of a second claimant shows
   * @throws io.epochal.errors.TableClaimedTwiceException if another claimant holds the table
   */
  void claim(String path, String claimant);

  /**
   * Reads keys as this epoch sees them: a key written in the epoch's buffer reads as written (absent if deleted),
   * every other key as committed in the store.
   *
   * @param table a table of this buffer's {@link #store()}
   * @param keys the keys to read, each of {@code table}'s schema
   * @return one element per key, in order; empty for a missing key
   * @throws io.epochal.errors.StoreException if the store cannot be read
   */
  List<Optional<Row>> lookup(Table table, List<TableKey> keys);

  /**
   * Upserts {@code upserts} and deletes {@code deletes} in {@code table}.
   *
   * @param table a table of this buffer's {@link #store()}
   * @param upserts whole rows to store, each of {@code table}'s schema; may be empty
   * @param deletes keys whose rows to delete, each of {@code table}'s schema; may be empty
   * @throws io.epochal.errors.LeaseLostException under {@link CommitProtocol#PER_KEY}, if the pipeline's lease was
   *     taken over (nothing written)
   * @throws io.epochal.errors.CommitConflictException under {@link CommitProtocol#PER_KEY}, on a write conflict
   * @throws io.epochal.errors.StoreException if the store cannot be written
   */
  void write(Table table, Collection<Row> upserts, Collection<TableKey> deletes);

  /**
   * Upserts one row; see {@link #write}.
   *
   * @param table a table of this buffer's {@link #store()}
   * @param row the whole row to store, of {@code table}'s schema
   */
  default void upsert(Table table, Row row) {
    write(table, List.of(row), List.of());
  }

  /**
   * Deletes one key's row; see {@link #write}.
   *
   * @param table a table of this buffer's {@link #store()}
   * @param key the key whose row to delete, of {@code table}'s schema
   */
  default void delete(Table table, TableKey key) {
    write(table, List.of(), List.of(key));
  }
}
