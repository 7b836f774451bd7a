package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.TableStores;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.TableStoreContractFailure;
import io.epochal.testkit.TableStoreContractSuite;
import io.epochal.testkit.TableStoreContractTest;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * Gap 6 of issue 17, friction: a store wrapper written with the forwarding bases ({@link CountingCommitsStore})
 * passes the whole contract by annotation; the contract's dynamic tests carry their contract method as test source,
 * and a failing one names itself ({@link TableStoreContractFailure#testName()}) even where the build tool lists it
 * by index.
 */
class UsingTheKitWithLessFrictionTest {

  /** The annotation form, over a wrapper built on {@code ForwardingTableStore} and {@code ForwardingStoreTransaction}. */
  @TableStoreContractTest
  TableStoreContractSuite countingWrapper() {
    return TableStoreContractSuite
        .of((dir, commit, read) -> new CountingCommitsStore(TableStores.inMemoryBuilder().commitHook(commit)
            .readHook(read).build()))
        .supportsReopen(false).storesBytes(false);
  }

  /** A suite over a store that lies about its atomicity. */
  static TableStoreContractSuite claimsAtomic() {
    return TableStoreContractSuite
        .of((dir, commit, read) -> new ClaimsAtomicCommitStore(TableStores.inMemoryBuilder()
            .atomicMultiTableCommit(false).commitHook(commit).readHook(read).build()))
        .supportsReopen(false).storesBytes(false);
  }

  @Test
  void shouldGiveEveryContractTestItsMethodAsTestSource() {
    DynamicContainer contract = (DynamicContainer) countingWrapper().tests().get(0);
    for (DynamicNode node : contract.getChildren().toList()) {
      URI source = node.getTestSourceUri().orElseThrow(() -> new AssertionError(node.getDisplayName()));
      assertEquals("method:io.epochal.testkit.store.TableStoreContract#" + node.getDisplayName() + "()",
          source.toString());
    }
  }

  @Test
  void shouldNameTheContractTestThatFails() {
    Map<String, DynamicTest> byName = tests(claimsAtomic());
    TableStoreContractFailure failure = assertThrows(TableStoreContractFailure.class,
        () -> byName.get("shouldApplyNothingWhenTheCommitFailsMidway").getExecutable().execute());
    assertEquals("shouldApplyNothingWhenTheCommitFailsMidway", failure.testName());
    assertTrue(failure.getMessage().startsWith("table-store contract test shouldApplyNothingWhenTheCommitFailsMidway "
        + "failed: "), failure.getMessage());

    TableStoreContractFailure replay = assertThrows(TableStoreContractFailure.class,
        () -> byName.get("opaque spout on the epoch protocol, both layouts").getExecutable().execute());
    assertEquals("replay: opaque spout on the epoch protocol, both layouts", replay.testName());
    assertInstanceOf(ReplayCheckFailure.class, replay.getCause());
  }

  private static Map<String, DynamicTest> tests(TableStoreContractSuite suite) {
    return suite.tests().stream().flatMap(n -> ((DynamicContainer) n).getChildren())
        .map(DynamicTest.class::cast)
        .collect(Collectors.toMap(DynamicNode::getDisplayName, Function.identity()));
  }

  @Test
  void shouldListTheSameTestsForEverySuite() {
    List<String> names = tests(countingWrapper()).keySet().stream().sorted().toList();
    assertEquals(names, tests(claimsAtomic()).keySet().stream().sorted().toList());
    assertTrue(Stream.of("shouldFenceACommitOnceItsLeaseWasTakenOver", "transactional spout, both layouts")
        .allMatch(names::contains), names.toString());
  }
}
