package io.epochal.spout;

import io.epochal.api.Stable;

/**
 * One attempt at one batch: the txid (from 1, growing by 1) and the attempt number (from 1, growing by 1 on each
 * retry of the same txid).
 *
 * @since 0.1.0
 */
@Stable
public record BatchAttempt(long txid, int attempt) {
  /**
   * Checks both numbers.
   *
   * @param txid the batch's txid, {@code >= 1}
   * @param attempt the attempt number at that txid, {@code >= 1} (1 for the first attempt)
   * @throws IllegalArgumentException if either is below 1
   */
  public BatchAttempt {
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be >= 1, was " + txid);
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
    }
  }

  @Override
  public String toString() {
    return "txid " + txid + " attempt " + attempt;
  }
}
