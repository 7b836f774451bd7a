package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.pipeline.internal.GuaranteeCheck;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import java.util.Optional;

/**
 * The engine's guarantee table for runtimes that pair spouts and states outside a {@link PipelineBuilder} (Epochal
 * state on Storm): whether a (spout kind, state kind, atomic epoch commit) pairing is exactly-once, and if not why, in
 * the words {@code PipelineBuilder.build()} uses. Stateless and thread-safe.
 *
 * @since 0.1.0
 */
@Stable
public final class Guarantees {
  private Guarantees() {
  }

  /**
   * Whether a spout and a state deliver exactly-once together.
   *
   * @param spoutKind the spout's replay promise
   * @param stateKind the state's replay behaviour
   * @param atomic whether the state commits its writes atomically with the batch (the epoch protocol)
   * @param spout the spout as {@code spout 'name' (KIND)}
   * @param state the state as {@code state 'name' (description)}
   * @return empty when the pairing is exactly-once, else the reason with its fix
   */
  public static Optional<String> whyNotExactlyOnce(SpoutKind spoutKind, StateKind stateKind, boolean atomic,
      String spout, String state) {
    return GuaranteeCheck.whyNot(spoutKind, stateKind, atomic, spout, state);
  }

  /**
   * The message refusing a pairing, as {@code PipelineBuilder.build()} words it.
   *
   * @param what what is refused, e.g. {@code Storm topology 'wc'}
   * @param why the reason, as {@link #whyNotExactlyOnce} returned it
   * @return the refusal message of {@code what} for reason {@code why}
   */
  public static String refusal(String what, String why) {
    return GuaranteeCheck.refusal(what, why);
  }
}
