package io.epochal.testkit;

/**
 * A scheduled "process death". An {@link Error}, so the coordinator treats it as fatal and does not retry: the
 * pipeline instance is abandoned, like a killed process, and {@link ReplayHarness} builds a new one over the same
 * stores.
 */
public final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;

  public SimulatedCrash(Fault fault) {
    super("simulated crash: " + fault);
  }
}
