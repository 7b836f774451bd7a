package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * A state needs a staging (e.g. the table rows of an {@code EpochBuffer}) that the pipeline's checkpoint store does
 * not offer: the pipeline's checkpoint store is not a table checkpoint store, or not the one of the state's tables.
 * Raised when the pipeline is built (or when the state is first made), never worked around: without its staging the
 * state could not make its rows durable with the batch. Not retryable. The context names the pipeline and the state's
 * table (the state's name when no table path is known yet).
 *
 * @since 0.3.0
 */
@Stable
public final class StagingUnavailableException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /** The simple name of the staging type the state needs. */
  private final String stagingType;
  /** The description of the pipeline's checkpoint store. */
  private final String checkpointStore;

  /**
   * A state whose staging the pipeline's checkpoint store does not offer; not retryable.
   *
   * @param pipeline the pipeline
   * @param table the state's table (or state name)
   * @param stagingType the simple name of the staging the state needs, e.g. {@code EpochBuffer}
   * @param checkpointStore the description of the pipeline's checkpoint store
   */
  public StagingUnavailableException(String pipeline, String table, String stagingType, String checkpointStore) {
    super("Pipeline '" + pipeline + "': state table " + table + " stages its rows in the epoch's " + stagingType
        + ", which the pipeline's checkpoint store (" + checkpointStore + ") does not offer. Build the pipeline with "
        + ".checkpointStore(...) set to a table checkpoint store on the store of the state's tables (a "
        + "CheckpointStore wrapper must forward staging(..) and return CheckpointEpoch.through(this, "
        + "wrapped.openEpoch(..)))", null, false,
        ErrorContext.of(Objects.requireNonNull(table, "table"), null).withPipeline(pipeline));
    this.stagingType = Objects.requireNonNull(stagingType, "stagingType");
    this.checkpointStore = Objects.requireNonNull(checkpointStore, "checkpointStore");
  }

  /** @return the simple name of the staging type the state needs */
  public String stagingType() {
    return stagingType;
  }

  /** @return the description of the pipeline's checkpoint store */
  public String checkpointStore() {
    return checkpointStore;
  }
}
