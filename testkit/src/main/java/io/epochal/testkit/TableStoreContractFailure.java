package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.Objects;

/**
 * A failed test of a {@link TableStoreContractSuite}, naming the contract test: build tools that list dynamic tests
 * by index ({@code contract()[1][11]}) still show which test failed, first thing in the message. The original failure
 * (a {@link ReplayCheckFailure}, an assertion, the store's exception) is the {@link #getCause() cause}.
 *
 * @since 0.3.0
 */
@Evolving
public final class TableStoreContractFailure extends AssertionError {
  private static final long serialVersionUID = 1L;
  /** The contract test's name, as {@link #testName()} returns it. */
  private final String testName;

  TableStoreContractFailure(String testName, Throwable cause) {
    super("table-store contract test " + testName + " failed: " + cause, cause);
    this.testName = Objects.requireNonNull(testName, "testName");
  }

  /** @return the contract test's name: its method in {@link io.epochal.testkit.store.TableStoreContract}, or the replay check */
  public String testName() {
    return testName;
  }
}
