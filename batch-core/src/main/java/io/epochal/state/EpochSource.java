package io.epochal.state;

import java.util.Optional;

/**
 * Where a state finds the epoch of the batch it is applying: the engine's, bound into the {@link StateContext} it
 * makes the state with. Thread-safe.
 *
 * @since 0.3.0
 */
@FunctionalInterface
public interface EpochSource {

  /** @return the epoch open now (a batch is in its commit phase), else empty */
  Optional<Epoch> current();

  /** @return a source that never has an epoch open (a state made outside a pipeline, e.g. to read results) */
  static EpochSource none() {
    return Optional::empty;
  }
}
