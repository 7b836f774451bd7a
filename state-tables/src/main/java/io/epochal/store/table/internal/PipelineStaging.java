package io.epochal.store.table.internal;

import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a table checkpoint store offers a pipeline's states before any batch ({@code TableCheckpointStore.staging}):
 * the store, protocol, table prefix and claim registry of the pipeline's epochs, without taking the pipeline's lease
 * (a state made only to read, after a run, must not fence the writer). Reads see the committed rows; writes happen
 * only in a batch's epoch, whose staging is the pipeline's {@link PipelineEpoch}. Immutable and thread-safe.
 * Internal.
 */
final class PipelineStaging implements EpochBuffer {
  private final Epochs epochs;
  private final String pipeline;

  PipelineStaging(Epochs epochs, String pipeline) {
    this.epochs = Objects.requireNonNull(epochs, "epochs");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
  }

  @Override
  public String pipeline() {
    return pipeline;
  }

  @Override
  public CommitProtocol protocol() {
    return epochs.protocol();
  }

  @Override
  public TableStore store() {
    return epochs.store();
  }

  @Override
  public String tablePrefix() {
    return epochs.tablePrefix();
  }

  @Override
  public void claim(String path, String claimant) {
    epochs.claim(Objects.requireNonNull(path, "path"), Objects.requireNonNull(claimant, "claimant"));
  }

  /** @return the committed rows (no epoch is open here) */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    return epochs.store().lookup(Objects.requireNonNull(table, "table"), Objects.requireNonNull(keys, "keys"));
  }

  /** @throws IllegalStateException always: states write only in a batch's epoch */
  @Override
  public void write(Table table, Collection<Row> upserts, Collection<TableKey> deletes) {
    throw new IllegalStateException("pipeline '" + pipeline + "' writes table " + table.path() + " outside an epoch: "
        + "states are written only in a batch's commit phase");
  }

  @Override
  public String toString() {
    return "staging of pipeline '" + pipeline + "' (" + protocol() + " protocol) on " + store().describe();
  }
}
