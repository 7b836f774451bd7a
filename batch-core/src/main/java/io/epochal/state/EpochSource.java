package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Optional;

/**
 * What the epochs of a pipeline offer its states before any batch: the staging a state factory binds its states to
 * (the engine's, bound into the {@link StateContext} it makes the states with). The epoch of each batch itself reaches
 * a state only through {@link State#begin(Epoch)}. Thread-safe.
 *
 * @since 0.3.0
 */
@Stable
public interface EpochSource {

  /**
   * The staging of type {@code type} the pipeline's epochs offer, known before any batch (what a state factory binds
   * its state to, e.g. the tables' store of an {@code EpochBuffer}).
   *
   * @param type the staging type the state needs
   * @param <T> the staging type
   * @return the staging, an instance of {@code type}; empty when the pipeline's checkpoint store stages nothing of
   *     that type
   */
  <T> Optional<T> staging(Class<T> type);

  /** @return a source whose epochs offer no staging (a state made outside a pipeline, e.g. to read results) */
  static EpochSource none() {
    return new EpochSource() {
      @Override
      public <T> Optional<T> staging(Class<T> type) {
        return Optional.empty();
      }
    };
  }
}
