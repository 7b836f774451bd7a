package io.epochal.state.transactional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.state.transactional.TransactionalValue.Decision;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TransactionalValueTest {

  @Test
  void shouldHoldValueAndTxid() {
    TransactionalValue<String> cell = new TransactionalValue<>("v", 3);
    assertEquals("v", cell.value());
    assertEquals(3, cell.txid());
  }

  @Test
  void shouldRejectNullValue() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> new TransactionalValue<>(null, 1));
    assertEquals("value", e.getMessage());
  }

  @Test
  void shouldRejectTxidBelowOne() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new TransactionalValue<>("v", 0));
    assertTrue(zero.getMessage().contains("was 0"), zero.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new TransactionalValue<>("v", -5));
  }

  @Test
  void shouldApplyWhenStoredCellIsOlder() {
    assertEquals(Decision.APPLY, new TransactionalValue<>(1L, 4).decide(5));
  }

  @Test
  void shouldSkipWhenStoredCellIsFromTheSameBatch() {
    assertEquals(Decision.SKIP, new TransactionalValue<>(1L, 5).decide(5));
  }

  @Test
  void shouldReportAheadWhenStoredCellIsNewer() {
    assertEquals(Decision.AHEAD, new TransactionalValue<>(1L, 6).decide(5));
  }

  @Test
  void shouldApplyWhenNothingIsStored() {
    assertEquals(Decision.APPLY, TransactionalValue.decide(Optional.empty(), 1));
  }

  @Test
  void shouldDecideOnPresentStoredCell() {
    assertEquals(Decision.APPLY, TransactionalValue.decide(Optional.of(new TransactionalValue<>(1L, 1)), 2));
    assertEquals(Decision.SKIP, TransactionalValue.decide(Optional.of(new TransactionalValue<>(1L, 2)), 2));
    assertEquals(Decision.AHEAD, TransactionalValue.decide(Optional.of(new TransactionalValue<>(1L, 3)), 2));
  }

  @Test
  void shouldRejectBatchTxidBelowOne() {
    assertThrows(IllegalArgumentException.class, () -> new TransactionalValue<>(1L, 1).decide(0));
    assertThrows(IllegalArgumentException.class, () -> TransactionalValue.decide(Optional.empty(), 0));
  }

  @Test
  void shouldRejectNullStoredOptional() {
    assertThrows(NullPointerException.class, () -> TransactionalValue.decide(null, 1));
  }

  @Test
  void shouldCompareByValueAndTxid() {
    assertEquals(new TransactionalValue<>("v", 2), new TransactionalValue<>("v", 2));
    assertEquals(new TransactionalValue<>("v", 2).hashCode(), new TransactionalValue<>("v", 2).hashCode());
    assertNotEquals(new TransactionalValue<>("v", 2), new TransactionalValue<>("v", 3));
    assertNotEquals(new TransactionalValue<>("v", 2), new TransactionalValue<>("w", 2));
    assertEquals("TransactionalValue[value=v, txid=2]", new TransactionalValue<>("v", 2).toString());
  }
}
