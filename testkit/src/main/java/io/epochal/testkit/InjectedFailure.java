package io.epochal.testkit;

import io.epochal.api.Evolving;

/**
 * A scheduled, retryable failure of one attempt.
 *
 * @since 0.1.0
 */
@Evolving
public final class InjectedFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Fault fault;

  /**
   * Makes the failure of a fault that fired; the message names the fault.
   *
   * @param fault the fault that fired
   */
  public InjectedFailure(Fault fault) {
    super("injected: " + fault);
    this.fault = fault;
  }

  /** @return the fault that fired */
  public Fault fault() {
    return fault;
  }
}
