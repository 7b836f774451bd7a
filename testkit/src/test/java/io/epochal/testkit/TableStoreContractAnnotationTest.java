package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.TableStores;
import io.epochal.testkit.store.TableStoreContract;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.annotation.Testable;

/**
 * The contract kit with one annotation, over an in-memory store with per-table atomicity only (the per-key protocol:
 * the opaque-spout replay check is skipped, as the contract's atomic-commit test is).
 */
class TableStoreContractAnnotationTest {

  @TableStoreContractTest
  TableStoreContractSuite perTableInMemoryStore() {
    return TableStoreContractSuite
        .of((dir, commit, read) -> TableStores.inMemoryBuilder().atomicMultiTableCommit(false).commitHook(commit)
            .readHook(read).build())
        .supportsReopen(false).storesBytes(false);
  }

  /** Every case of the contract, by name: dropping or renaming one must be a visible change of this list. */
  static final List<String> CONTRACT_CASES = List.of(
      "shouldAcceptConcurrentWritesToOneTransaction",
      "shouldApplyNothingWhenTheCommitFailsMidway",
      "shouldCommitSeveralTablesTogether",
      "shouldCommitUnderTheCurrentLease",
      "shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns",
      "shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen",
      "shouldDetectAConflictWithACommittedDelete",
      "shouldDropEverythingOnAbort",
      "shouldEndTheTransactionWithItsCommit",
      "shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing",
      "shouldFailAOneOffLookupWhoseReadFails",
      "shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable",
      "shouldFailTheSecondOfTwoOverlappingWritesToOneRow",
      "shouldFenceACommitOnceItsLeaseWasTakenOver",
      "shouldFindExistingTablesWithTheirSchema",
      "shouldIncreaseTheLeaseGenerationOnEveryTakeover",
      "shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen",
      "shouldLetTheLastWriteOfAKeyWinWithinATransaction",
      "shouldMakeDeletesVisibleOnlyAfterCommit",
      "shouldMakeUpsertsVisibleOnlyAfterCommit",
      "shouldNameTheTableOfEachReadToTheReadHook",
      "shouldNotConflictWithoutOverlapOrOnDifferentRows",
      "shouldNotStartOverWhenTheCheckpointBytesAreDamaged",
      "shouldNotStartOverWhenTheCheckpointCannotBeRead",
      "shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook",
      "shouldRefuseAStoredRowWithAnyBitFlipped",
      "shouldRefuseATruncatedStoredRow",
      "shouldRefuseGarbageInPlaceOfAStoredRow",
      "shouldRejectKeysAndRowsThatDoNotFitTheSchema",
      "shouldRejectNullKeyPartsNamingTableAndColumn",
      "shouldReportMissingKeysInPlace",
      "shouldReturnLookupResultsInTheOrderOfTheKeysAsked",
      "shouldRoundTripEveryColumnTypeIncludingNulls",
      "shouldScanInYtKeyOrder",
      "shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch",
      "shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch",
      "shouldTreatByteKeysByContent");

  /** The contract's test methods found independently of the suite: any JUnit-testable annotation, any visibility. */
  private static List<Method> declaredTestMethods() {
    List<Method> out = new ArrayList<>();
    for (Class<?> c = TableStoreContract.class; c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (Arrays.stream(m.getAnnotations()).anyMatch(a -> a.annotationType().isAnnotationPresent(Testable.class))) {
          out.add(m);
        }
      }
    }
    return out;
  }

  @Test
  void shouldRunEveryTestOfTheContractAndBothReplayChecks() {
    List<Method> declared = declaredTestMethods();
    for (Method m : declared) {
      assertTrue(Modifier.isPublic(m.getModifiers()) && m.getParameterCount() == 0
          && !Modifier.isStatic(m.getModifiers()), () -> "the suite runs public no-argument @Test methods only: " + m);
    }
    List<String> declaredNames = declared.stream().map(Method::getName).sorted().toList();
    assertEquals(CONTRACT_CASES, declaredNames, "the contract's cases");
    List<Method> contract = TableStoreContractSuite.contractMethods();
    assertEquals(CONTRACT_CASES, contract.stream().map(Method::getName).toList(), "the suite's contract methods");
    for (Method m : contract) {
      assertTrue(m.getDeclaringClass() == TableStoreContract.class, m.toString());
    }
    List<DynamicNode> nodes = perTableInMemoryStore().tests();
    assertEquals(List.of("contract", "replay"), nodes.stream().map(DynamicNode::getDisplayName).toList());
    assertEquals(CONTRACT_CASES, ((DynamicContainer) nodes.get(0)).getChildren().map(DynamicNode::getDisplayName)
        .toList(), "one dynamic test per case, named after it");
    assertEquals(List.of("transactional spout, both layouts", "opaque spout on the epoch protocol, both layouts"),
        ((DynamicContainer) nodes.get(1)).getChildren().map(DynamicNode::getDisplayName).toList());
  }
}
