package io.epochal.testkit;

import io.epochal.api.Evolving;

/**
 * A {@link ReplayCheck} found a schedule under which the code under test is not exactly-once: its message is the
 * {@link ReplayResult#report()} (schedule, numbered timeline, expected vs actual of the differing keys). An
 * {@link AssertionError}, so JUnit and jqwik report it as a failed assertion, and jqwik shrinks the schedule.
 *
 * @since 0.1.0
 */
@Evolving
public final class ReplayCheckFailure extends AssertionError {
  private static final long serialVersionUID = 1L;

  private final transient ReplayResult<?, ?> result;

  /** @param result the failed result; its error, if any, becomes the cause */
  public ReplayCheckFailure(ReplayResult<?, ?> result) {
    super(result.report(), result.error().orElse(null));
    this.result = result;
  }

  /** @return the failed result (null after deserialization) */
  public ReplayResult<?, ?> result() {
    return result;
  }
}
