package io.epochal.sink;

import io.epochal.api.Stable;
import java.util.List;

/**
 * The external system an {@link OutboxSink} publishes a pipeline's outputs to, exactly once per partition and txid.
 * The publisher owns the truth of what it published: {@link #lastPublished} must read it back from the external
 * system (a Kafka sink, for example, commits a marker in the same Kafka transaction as the records), so that after a
 * crash between publishing and the next checkpoint commit nothing is published twice, and nothing is lost.
 *
 * <p>The outbox sink calls one publisher from one thread at a time (the pipeline's coordinator thread).
 *
 * @param <T> the record type
 * @since 0.4.0
 */
@Stable
public interface Publisher<T> {

  /**
   * The highest txid whose records of {@code partition} this publisher published durably, 0 if none; called when
   * the pipeline starts, before publishing what the outbox recovered.
   *
   * @param partition the sink partition, in {@code [0, partitions)} of the pipeline
   * @return the highest txid published durably for {@code partition}, read from the external system; 0 if none
   * @throws RuntimeException if the external system cannot be read; the pipeline does not start
   */
  long lastPublished(int partition);

  /**
   * Publishes the records of batch {@code txid}, partition {@code partition}, atomically: after any crash, either
   * all of them are visible and {@link #lastPublished}({@code partition}) is at least {@code txid}, or none is and it
   * is below. Called with increasing txids per partition, never for a txid at or below {@code lastPublished}, and only
   * for partitions with at least one record in the batch.
   *
   * @param partition the sink partition, in {@code [0, partitions)} of the pipeline
   * @param txid the committed batch's txid, above {@code lastPublished(partition)}
   * @param records the partition's records of the batch, in stream order, at least one
   * @throws RuntimeException if publishing failed; the batch's records stay in the outbox and the pipeline stops
   */
  void publish(int partition, long txid, List<T> records);

  /**
   * A short description for errors and logs.
   *
   * @return a description naming the external system (by default the simple name of the class)
   */
  default String describe() {
    return getClass().getSimpleName();
  }
}
