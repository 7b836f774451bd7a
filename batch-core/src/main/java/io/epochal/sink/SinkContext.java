package io.epochal.sink;

import io.epochal.api.Stable;
import io.epochal.store.OutboxEntry;
import java.util.List;
import java.util.Objects;

/**
 * What a sink learns when its pipeline starts ({@link Sink#open}): its name, the pipeline's partitions, the last
 * committed txid, and the outputs of that batch the checkpoint kept in its outbox for this sink (empty unless the
 * sink stages in the outbox). A sink that publishes from the outbox publishes from {@code recovered} what it did not
 * publish before the previous process stopped.
 *
 * <p>Immutable and thread-safe.
 *
 * @param pipeline the pipeline's name
 * @param sink the sink's name in the pipeline
 * @param partitions the pipeline's partition count
 * @param committedTxid the last committed txid, 0 if none
 * @param recovered this sink's outbox entries of batch {@code committedTxid}, by partition
 * @since 0.4.0
 */
@Stable
public record SinkContext(String pipeline, String sink, int partitions, long committedTxid,
    List<OutboxEntry> recovered) {

  /**
   * Checks the components and copies {@code recovered}.
   *
   * @param pipeline the pipeline's name, not null
   * @param sink the sink's name in the pipeline, not null
   * @param partitions the pipeline's partition count, at least 1
   * @param committedTxid the last committed txid, {@code >= 0}, 0 if none
   * @param recovered this sink's outbox entries of batch {@code committedTxid}; copied
   * @throws IllegalArgumentException if {@code partitions < 1}, {@code committedTxid < 0}, or an entry is of another
   *     sink or txid
   */
  public SinkContext {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(sink, "sink");
    if (partitions < 1 || committedTxid < 0) {
      throw new IllegalArgumentException("partitions (" + partitions + ") must be >= 1 and committedTxid ("
          + committedTxid + ") >= 0");
    }
    recovered = List.copyOf(recovered);
    for (OutboxEntry e : recovered) {
      if (!e.sink().equals(sink) || e.txid() != committedTxid) {
        throw new IllegalArgumentException("entry " + e + " is not of sink '" + sink + "' and txid " + committedTxid);
      }
    }
  }
}
