package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.TableStores;
import io.epochal.testkit.store.TableStoreContract;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;

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

  @Test
  void shouldRunEveryTestOfTheContractAndBothReplayChecks() {
    List<Method> contract = TableStoreContractSuite.contractMethods();
    assertTrue(contract.size() >= 20, "found " + contract.size() + " contract tests");
    for (Method m : contract) {
      assertTrue(m.getDeclaringClass() == TableStoreContract.class, m.toString());
    }
    List<DynamicNode> nodes = perTableInMemoryStore().tests();
    assertEquals(List.of("contract", "replay"), nodes.stream().map(DynamicNode::getDisplayName).toList());
    assertEquals(contract.size(), ((DynamicContainer) nodes.get(0)).getChildren().count());
    assertEquals(2, ((DynamicContainer) nodes.get(1)).getChildren().count());
  }
}
