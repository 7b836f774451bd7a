package io.epochal.spouts;

import io.epochal.spout.BatchAttempt;
import java.util.Objects;

/**
 * A failure injected on purpose by a {@link FaultInjectingSpout}, to test that the engine retries the batch under
 * the same txid and never commits a partial one. Deliberately not an {@link io.epochal.errors.EpochalException}: it
 * stands for a transient failure that a retry can overcome. The message names the spout, the point, the txid and the
 * attempt.
 *
 * <p>Immutable (safe to share between threads). The constructor rejects {@code null} arguments with
 * {@link NullPointerException}.
 *
 * @since 0.1.0
 */
public final class InjectedFault extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String spout;
  private final FaultPoint point;
  private final long txid;
  private final int attempt;

  /**
   * @throws NullPointerException if an argument is {@code null}
   */
  public InjectedFault(String spout, FaultPoint point, BatchAttempt attempt) {
    super("Injected fault " + Objects.requireNonNull(point, "point") + " in spout "
        + Objects.requireNonNull(spout, "spout") + " at txid " + attempt.txid() + " attempt " + attempt.attempt());
    this.spout = spout;
    this.point = point;
    this.txid = attempt.txid();
    this.attempt = attempt.attempt();
  }

  /** @return the name of the spout that failed */
  public String spout() {
    return spout;
  }

  /** @return where the fault was injected */
  public FaultPoint point() {
    return point;
  }

  /** @return the failed batch attempt */
  public BatchAttempt batchAttempt() {
    return new BatchAttempt(txid, attempt);
  }
}
