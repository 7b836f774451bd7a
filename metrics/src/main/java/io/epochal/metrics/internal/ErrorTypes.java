package io.epochal.metrics.internal;

/**
 * The value of the {@code error} tag of a failure: its class's simple name (the full name if it has none).
 * Stateless.
 */
final class ErrorTypes {
  private ErrorTypes() {
  }

  /** @return {@code failure}'s simple class name, or its full name for an anonymous or local class without one */
  static String of(Throwable failure) {
    String simple = failure.getClass().getSimpleName();
    return simple.isEmpty() ? failure.getClass().getName() : simple;
  }
}
