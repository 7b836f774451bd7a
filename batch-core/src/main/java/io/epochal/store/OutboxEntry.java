package io.epochal.store;

import io.epochal.api.Stable;
import java.util.Arrays;
import java.util.Objects;

/**
 * One partition's outputs of one batch for one sink, kept in the pipeline's checkpoint (its outbox) from the commit
 * of the batch until the commit of the next one, so that a restarted pipeline can finish publishing a batch whose
 * epoch committed before the process died ({@link Checkpoint#outbox()}). The payload is opaque to the store: the sink
 * encoded it ({@code io.epochal.sink.OutboxSink}).
 *
 * <p>Immutable (the payload is copied in and out) and thread-safe; equality compares the payload's bytes.
 *
 * @param sink the sink's name in its pipeline ({@code stream.to(name, sink)})
 * @param txid the batch whose outputs these are, at least 1
 * @param partition the sink partition, at least 0
 * @param payload the encoded outputs
 * @since 0.4.0
 */
@Stable
public record OutboxEntry(String sink, long txid, int partition, byte[] payload) {

  /**
   * Checks the components and copies the payload.
   *
   * @param sink the sink's name in its pipeline
   * @param txid the batch whose outputs these are, at least 1
   * @param partition the sink partition, at least 0
   * @param payload the encoded outputs; copied
   * @throws IllegalArgumentException if {@code txid < 1} or {@code partition < 0}
   * @throws NullPointerException if {@code sink} or {@code payload} is null
   */
  public OutboxEntry {
    Objects.requireNonNull(sink, "sink");
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be at least 1, was " + txid);
    }
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, was " + partition);
    }
    payload = Objects.requireNonNull(payload, "payload").clone();
  }

  /** @return a copy of the encoded outputs */
  @Override
  public byte[] payload() {
    return payload.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxEntry e && e.txid == txid && e.partition == partition && e.sink.equals(sink)
        && Arrays.equals(e.payload, payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(sink, txid, partition) * 31 + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "OutboxEntry[sink=" + sink + ", txid=" + txid + ", partition=" + partition + ", " + payload.length
        + " bytes]";
  }
}
