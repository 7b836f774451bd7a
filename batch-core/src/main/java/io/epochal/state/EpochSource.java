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

  /**
   * The staging of type {@code type} the pipeline's epochs offer, known before any batch (what a state factory binds
   * its state to, e.g. the tables' store of an {@code EpochBuffer}); the default offers none.
   *
   * @return empty when the pipeline's checkpoint store stages nothing of that type
   */
  default <T> Optional<T> staging(Class<T> type) {
    return Optional.empty();
  }

  /** @return a source that never has an epoch open (a state made outside a pipeline, e.g. to read results) */
  static EpochSource none() {
    return Optional::empty;
  }
}
