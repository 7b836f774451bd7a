package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.state.State;

/**
 * A state declared in a pipeline (by {@code persistentAggregate} or {@code partitionPersist}), usable by
 * {@code stateQuery}.
 *
 * @param <S> the state type
 *
 * @since 0.1.0
 */
@Stable
public interface StateRef<S extends State> {

  /**
   * The state's name, unique within the pipeline.
   *
   * @return the name the state was declared with (also its table's name)
   */
  String name();
}
