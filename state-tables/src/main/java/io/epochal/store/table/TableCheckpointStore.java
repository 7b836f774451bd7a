package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.spout.BatchAttempt;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.internal.Epochs;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link CheckpointStore} in a table of a {@link TableStore}, and the epoch context that table-backed states share:
 * pass it to the pipeline builder; the pipeline's table states ({@link TableStates}, {@code TransactionalTableLayout},
 * {@code OpaqueTableLayout}) find it through the staging it offers ({@link #staging}: the pipeline's
 * {@link EpochBuffer}), never by being handed it.
 *
 * <p><b>Checkpoint table.</b> {@code <prefix>__epochal_checkpoints}, rows
 * {@code (hash, pipeline) -> committed_txid int64, metadata bytes, pending bytes}: the last committed txid with its
 * spout metadata, and (in {@code pending}) the metadata of started, uncommitted batches and the attempt reservation
 * ({@link #reserveAttempts}), and the outbox: the sink outputs of the committed batch until the next commit
 * ({@link #keepsOutbox}).
 *
 * <p><b>Epochs.</b> The engine opens the epoch of every batch attempt with {@link #openEpoch}; its staging is the
 * pipeline's {@link EpochBuffer}, where the table-backed states of the batch (handed the epoch by
 * {@code State.begin(epoch)}) stage their rows, and its {@code commit} (the one durable step) is {@link #commit}.
 *
 * <p><b>Protocol</b>, chosen from the store's {@link StoreCapabilities} (and logged) unless set on the builder:
 * <ul>
 *   <li>{@link CommitProtocol#EPOCH} on a store with atomic multi-table commit: the states write into the pipeline's
 *       {@link EpochBuffer} (their reads see it first); {@link #commit} writes every buffered row of every state and
 *       the checkpoint row in ONE store transaction under the pipeline's lease; {@link #abort} drops the buffer. A
 *       failed attempt therefore leaves nothing visible, and the staging is {@linkplain EpochBuffer#atomic() atomic}
 *       for the states that stage in it: any replayable spout is exactly-once with a txid-carrying state, even an
 *       opaque spout with a {@code TransactionalMap}.</li>
 *   <li>{@link CommitProtocol#PER_KEY} otherwise: every state write is its own store transaction under the lease
 *       (Trident's per-key protocol: the txids in the cells make replays idempotent), and {@link #commit} writes the
 *       checkpoint row on its own after all states of the batch. The staging is not atomic.</li>
 * </ul>
 *
 * <p><b>Leases and fencing.</b> The first use of a pipeline name ({@link #load}, normally when a pipeline is built)
 * takes over the lease {@code pipeline:<name>} for this checkpoint store's owner. Every write of the pipeline (state
 * writes and checkpoint rows) is fenced by it: once another worker took the lease over (another
 * {@code TableCheckpointStore}, typically in another process, loaded the same pipeline), this one's commits fail with
 * {@link io.epochal.errors.LeaseLostException} and change nothing. A restarted pipeline built over the same
 * {@code TableCheckpointStore} object keeps its lease: close the previous {@code Pipeline} first (the two would not be
 * fenced from each other); build a new {@code TableCheckpointStore} to take over after being fenced.
 *
 * <p>Thread-safe. Each call is atomic (one store transaction). Null arguments are rejected with
 * {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableCheckpointStore implements CheckpointStore {
  private final Epochs epochs;

  private TableCheckpointStore(Epochs epochs) {
    this.epochs = epochs;
  }

  /**
   * A checkpoint store over {@code store} with the default options: protocol from the store's capabilities, no table
   * prefix, and an owner name made of the process id and a random suffix.
   *
   * @param store the table store that holds the checkpoint table and the pipelines' state tables
   * @return the checkpoint store, its checkpoint table opened (created if missing)
   * @throws io.epochal.errors.SchemaMismatchException if the checkpoint table exists with another schema
   * @throws io.epochal.errors.StoreException if the store fails
   */
  public static TableCheckpointStore on(TableStore store) {
    return builder(store).build();
  }

  /**
   * Starts building a checkpoint store over {@code store} with options other than the defaults of {@link #on}.
   *
   * @param store the table store that holds the checkpoint table and the pipelines' state tables
   * @return a new builder with no option set
   * @throws NullPointerException if {@code store} is null
   */
  public static Builder builder(TableStore store) {
    return new Builder(store);
  }

  /** @return the table store */
  public TableStore tableStore() {
    return epochs.store();
  }

  /** @return the protocol in force */
  public CommitProtocol protocol() {
    return epochs.protocol();
  }

  /** @return the lease owner name of this checkpoint store */
  public String owner() {
    return epochs.owner();
  }

  /** @return the prefix of the tables this checkpoint store names ({@code ""} by default) */
  public String tablePrefix() {
    return epochs.tablePrefix();
  }

  /** @return the checkpoint table */
  public Table checkpointTable() {
    return epochs.checkpointTable();
  }

  /**
   * {@inheritDoc} The epoch's staging is the pipeline's {@link EpochBuffer} (taking the pipeline's lease over on first
   * use), declared for the attempt's txid: this is the one place a txid is checked for the epoch's states.
   *
   * @throws IllegalStateException if the buffer holds writes of another txid that was neither committed nor aborted
   */
  @Override
  public CheckpointEpoch openEpoch(String pipeline, BatchAttempt attempt) {
    Objects.requireNonNull(attempt, "attempt");
    return CheckpointEpoch.of(this, pipeline, attempt,
        Optional.of(epochs.pipeline(pipeline).forTxid(attempt.txid())));
  }

  /**
   * Claims table {@code path} for writing by {@code claimant} (e.g. {@code "state 'counts' of pipeline 'wc'"}); the
   * map states of {@link TableStates} claim their tables here, and other table-backed states should too, so that a
   * pipeline with two writers on one table is refused. Claiming again with the same claimant is a no-op.
   *
   * @param path the path of the table to claim, as in its {@link TableSchema#path()}
   * @param claimant who writes the table, in words that the error of a second claimant shows
   * @throws io.epochal.errors.TableClaimedTwiceException if another claimant holds the table
   */
  public void claim(String path, String claimant) {
    epochs.claim(Objects.requireNonNull(path, "path"), Objects.requireNonNull(claimant, "claimant"));
  }

  /**
   * Returns the lease that fences a pipeline's writes, taking it over for this store's owner on its first use.
   *
   * @param pipeline the pipeline name (the lease is {@code pipeline:<name>})
   * @return the lease {@code pipeline}'s writes are fenced by
   * @throws io.epochal.errors.StoreException if the lease cannot be acquired
   */
  public Lease lease(String pipeline) {
    return epochs.pipeline(pipeline).lease();
  }

  /**
   * {@inheritDoc} Takes the pipeline's lease over on its first use.
   *
   * @throws io.epochal.errors.StateCorruptedException if the checkpoint row cannot be decoded
   */
  @Override
  public Checkpoint load(String pipeline) {
    return epochs.load(pipeline);
  }

  /**
   * {@inheritDoc}
   *
   * @throws io.epochal.errors.LeaseLostException if the pipeline's lease was taken over; nothing written
   */
  @Override
  public void recordPending(String pipeline, long txid, byte[] metadata) {
    epochs.recordPending(pipeline, txid, metadata);
  }

  /**
   * {@inheritDoc} Under {@link CommitProtocol#EPOCH} also writes every buffered state row of the epoch, in the same
   * store transaction. The buffer is emptied whatever the outcome.
   *
   * @throws io.epochal.errors.LeaseLostException if the pipeline's lease was taken over; nothing written
   * @throws io.epochal.errors.CommitConflictException if another transaction wrote one of the rows meanwhile; nothing
   *     written
   */
  @Override
  public void commit(String pipeline, long txid, byte[] metadata) {
    epochs.commit(pipeline, txid, metadata, java.util.List.of());
  }

  /**
   * {@inheritDoc} The outbox is kept in the pipeline's checkpoint row, written in the commit's store transaction.
   *
   * @throws io.epochal.errors.LeaseLostException if the pipeline's lease was taken over; nothing written
   * @throws io.epochal.errors.CommitConflictException if another transaction wrote one of the rows meanwhile; nothing
   *     written
   */
  @Override
  public void commit(String pipeline, long txid, byte[] metadata, java.util.List<io.epochal.store.OutboxEntry> outbox) {
    epochs.commit(pipeline, txid, metadata, outbox);
  }

  /** @return true: the checkpoint row keeps the committed batch's sink outputs */
  @Override
  public boolean keepsOutbox() {
    return true;
  }

  /**
   * {@inheritDoc} Kept in the pipeline's checkpoint row; one store transaction under the pipeline's lease.
   *
   * @throws io.epochal.errors.LeaseLostException if the pipeline's lease was taken over; nothing written
   */
  @Override
  public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
    epochs.reserveAttempts(pipeline, attemptCeiling, txidWindow);
  }

  /** Drops the epoch buffer of {@code pipeline}: its current attempt failed. */
  @Override
  public void abort(String pipeline, long txid) {
    epochs.abort(pipeline, txid);
  }

  /**
   * {@inheritDoc} A table checkpoint store offers {@link EpochBuffer} (and its super-types): atomic under
   * {@link CommitProtocol#EPOCH}; before any batch it reads committed rows and refuses writes (writes go to the
   * epoch's buffer). Does not take the pipeline's lease: a state made only to read fences no writer.
   */
  @Override
  public <T> Optional<T> staging(String pipeline, Class<T> type) {
    Objects.requireNonNull(pipeline, "pipeline");
    if (!Objects.requireNonNull(type, "type").isAssignableFrom(EpochBuffer.class)) {
      return Optional.empty();
    }
    return Optional.of(type.cast(epochs.staging(pipeline)));
  }

  @Override
  public String describe() {
    return "table checkpoint store (" + epochs.protocol() + " protocol) on " + epochs.store().describe();
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Builds a {@link TableCheckpointStore}. Each option may be set once ({@link IllegalStateException} otherwise).
   * Not thread-safe.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final TableStore store;
    private String owner;
    private String tablePrefix;
    private CommitProtocol protocol;

    private Builder(TableStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Sets the lease owner name of this worker (default {@code <pid>-<random>}); shown in fencing errors.
     *
     * @param owner the name, unique among the workers that may run the same pipelines
     * @return this builder
     * @throws IllegalStateException if the owner was already set
     */
    public Builder owner(String owner) {
      requireUnset(this.owner, "owner");
      this.owner = Objects.requireNonNull(owner, "owner");
      return this;
    }

    /**
     * A prefix of every table this checkpoint store and its states name (default {@code ""}), e.g.
     * {@code "//home/app/"} on YTsaurus.
     *
     * @param tablePrefix prepended as is to the checkpoint table's name and to every state table path
     *     ({@code <prefix><pipeline>/<state>}), so a directory prefix ends with {@code /}
     * @return this builder
     * @throws IllegalStateException if the prefix was already set
     */
    public Builder tablePrefix(String tablePrefix) {
      requireUnset(this.tablePrefix, "tablePrefix");
      this.tablePrefix = Objects.requireNonNull(tablePrefix, "tablePrefix");
      return this;
    }

    /**
     * Forces a protocol instead of choosing it from the store's capabilities (for tests of the per-key protocol on an
     * atomic store).
     *
     * @param protocol the protocol to use
     * @return this builder
     * @throws IllegalStateException if the protocol was already set
     * @throws IllegalArgumentException on {@link CommitProtocol#EPOCH} if the store lacks atomic multi-table commit
     *     (checked by {@link #build()})
     */
    public Builder protocol(CommitProtocol protocol) {
      requireUnset(this.protocol, "protocol");
      this.protocol = Objects.requireNonNull(protocol, "protocol");
      return this;
    }

    /**
     * Opens (creating if needed) the checkpoint table and logs the protocol. The builder can build again.
     *
     * @return a checkpoint store with the options set and the defaults of {@link TableCheckpointStore#on} for the
     *     others
     * @throws IllegalArgumentException if {@link CommitProtocol#EPOCH} was forced on a store without atomic
     *     multi-table commit
     * @throws io.epochal.errors.SchemaMismatchException if the checkpoint table exists with another schema
     */
    public TableCheckpointStore build() {
      boolean atomic = store.capabilities().atomicMultiTableCommit();
      CommitProtocol chosen = protocol != null ? protocol : atomic ? CommitProtocol.EPOCH : CommitProtocol.PER_KEY;
      if (chosen == CommitProtocol.EPOCH && !atomic) {
        throw new IllegalArgumentException("the EPOCH protocol needs atomic multi-table commit, which "
            + store.describe() + " does not declare; use PER_KEY");
      }
      String who = owner != null ? owner
          : ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
      return new TableCheckpointStore(new Epochs(store, chosen, who, tablePrefix == null ? "" : tablePrefix));
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }
  }
}
