package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;

/** How the engine surfaces failures that stop a pipeline. Stateless: static methods only. Internal. */
final class Failures {
  private Failures() {
  }

  /**
   * What a non-retryable failure surfaces as: itself, except an I/O failure no retry fixes that is not already an
   * {@link EpochalException}, which becomes a non-retryable {@link StoreException} saying what to do (free disk space,
   * remount read-write, ...) and naming the pipeline and txid, with the original as its cause.
   */
  static Throwable stopping(String pipeline, long txid, Throwable error, ErrorContext context) {
    if (error instanceof EpochalException || error instanceof Error || !StoreException.isUnfixableIo(error)) {
      return error;
    }
    return StoreException.io("Pipeline '" + pipeline + "' stopped at txid " + txid, error, context);
  }

  /** Throws {@code e} as it is if unchecked, else wrapped in an {@link EpochalException}. */
  static void throwUnchecked(Throwable e) {
    if (e instanceof RuntimeException re) {
      throw re;
    }
    if (e instanceof Error err) {
      throw err;
    }
    throw new EpochalException(e.toString(), e);
  }
}
