package io.epochal.flow;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.Objects;

/**
 * The time to live of a read-write state ({@link StateSpec.Builder#ttl}): a key not written for {@code ttl} of
 * {@code domain} time expires. Writes ({@code set}, {@code update}, {@code clear}) touch a key's deadline, reads do
 * not. An expired key reads as absent; its row is deleted in a later epoch by an expiration (at most
 * {@code maxExpirationsPerBatch} per partition and batch, the rest in the next batches, in deadline order), committed
 * with that epoch.
 *
 * <p>Immutable and thread-safe.
 *
 * @param ttl how long an untouched key lives, at least 1 ms (millisecond precision)
 * @param domain {@link TimeDomain#PROCESSING_TIME} (the {@link TimerClock} of the {@link FlowStates}) or
 *     {@link TimeDomain#EVENT_TIME} (the computation's watermark; needs a {@link WatermarkStrategy})
 * @param maxExpirationsPerBatch the most keys one partition expires in one batch, at least 1
 * @since 0.5.0
 */
@Evolving
public record StateTtl(Duration ttl, TimeDomain domain, int maxExpirationsPerBatch) {
  /** The default bound of expirations per partition and batch. */
  public static final int DEFAULT_MAX_EXPIRATIONS_PER_BATCH = 10_000;

  /**
   * Validates a time to live.
   *
   * @param ttl how long an untouched key lives, at least 1 ms (used at millisecond precision, {@link #millis()})
   * @param domain the time {@code ttl} is measured in: processing time or event time
   * @param maxExpirationsPerBatch the most keys one partition expires in one batch, at least 1
   * @throws NullPointerException if {@code ttl} or {@code domain} is null
   * @throws IllegalArgumentException if {@code ttl} is below 1 ms or {@code maxExpirationsPerBatch} below 1
   */
  public StateTtl {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(domain, "domain");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
    }
    if (maxExpirationsPerBatch < 1) {
      throw new IllegalArgumentException("maxExpirationsPerBatch must be >= 1, was " + maxExpirationsPerBatch);
    }
  }

  /** @return the ttl in milliseconds */
  public long millis() {
    return ttl.toMillis();
  }
}
