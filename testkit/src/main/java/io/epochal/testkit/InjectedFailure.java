package io.epochal.testkit;

/** A scheduled, retryable failure of one attempt. */
public final class InjectedFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InjectedFailure(Fault fault) {
    super("injected: " + fault);
  }
}
