package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.EpochalException;

/**
 * What the contract's read-fault cases share: skipping them on an opt-out or for a store that keeps no bytes, the
 * hint for a store that does not take the read hook, and the checks of a named, unretryable error. Not thread-safe,
 * like the fixture.
 */
abstract class ReadFaultChecks extends ContractCases {
  ReadFaultChecks(ContractFixture fixture) {
    super(fixture);
  }

  void assumeReadFaults() {
    readFaultsOptOut().ifPresent(reason -> assumeTrue(false, "the store under test opts out of the read-fault "
        + "cases: " + reason));
  }

  void assumeStoresBytes() {
    assumeTrue(storesBytes(), "the store keeps rows as objects or typed columns, not bytes it decodes "
        + "(storesBytes() is false): there are no stored bytes to damage");
  }

  String notWiredHint(String tablePath) {
    if (reads.beforeReads(tablePath) > 0) {
      return "";
    }
    return ". ReadHook.beforeRead was never called for table " + tablePath + " (calls seen: "
        + reads.beforeReadPaths() + "): the store under test does not take the contract's read hook. Override "
        + "createStore(CommitHook, ReadHook) to pass it to the store (or, only if the store cannot take one, "
        + "readFaultsOptOut() with the reason)";
  }

  static void assertNamedUnretryable(String what, Throwable e, String tablePath, String key) {
    boolean named = false;
    for (Throwable c = e; c != null; c = c.getCause()) {
      named |= c instanceof EpochalException;
    }
    assertTrue(named, what + " must fail with an EpochalException (StateCorruptedException), got " + e);
    assertFalse(EpochalException.isRetryable(e), what + ": damaged bytes stay damaged, so the error must not be "
        + "retryable (EpochalException.retryable() false), got " + e);
    assertTrue(names(e, tablePath), what + ": the error must name the table " + tablePath
        + " (in its message or context().table()), got " + e);
    if (key != null) {
      assertTrue(names(e, key), what + ": the error must name the key " + key
          + " (in its message or context().key()), got " + e);
    }
  }

  /** Whether {@code text} is in the message or the error context of {@code e} or a cause. */
  static boolean names(Throwable e, String text) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().contains(text)) {
        return true;
      }
      if (c instanceof EpochalException ee && (ee.context().table().filter(x -> x.contains(text)).isPresent()
          || ee.context().key().filter(x -> x.contains(text)).isPresent())) {
        return true;
      }
    }
    return false;
  }

  static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
      for (Throwable s : c.getSuppressed()) {
        if (causedBy(s, type)) {
          return true;
        }
      }
    }
    return false;
  }
}
