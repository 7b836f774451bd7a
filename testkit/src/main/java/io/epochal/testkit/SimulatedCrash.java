package io.epochal.testkit;

import io.epochal.api.Evolving;

/**
 * A scheduled "process death". An {@link Error}, so the coordinator treats it as fatal and does not retry: the
 * pipeline instance is abandoned, like a killed process, and {@link ReplayHarness} builds a new one over the same
 * stores.
 *
 * @since 0.1.0
 */
@Evolving
public final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;

  private final transient Fault fault;

  /**
   * Makes the crash of a fault that fired; the message names the fault.
   *
   * @param fault the fault that fired
   */
  public SimulatedCrash(Fault fault) {
    super("simulated crash: " + fault);
    this.fault = fault;
  }

  /** @return the fault that fired */
  public Fault fault() {
    return fault;
  }
}
