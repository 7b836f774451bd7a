package io.epochal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link TriesScale#scaled} multiplies and rounds, keeps at least one try, and refuses a scale not above 0. */
class TriesScaleTest {
  private final String saved = System.getProperty(TriesScale.PROPERTY);

  @AfterEach
  void restore() {
    if (saved == null) {
      System.clearProperty(TriesScale.PROPERTY);
    } else {
      System.setProperty(TriesScale.PROPERTY, saved);
    }
  }

  @Test
  void scalesRoundsAndRefusesBadScales() {
    System.setProperty(TriesScale.PROPERTY, "0.25");
    assertEquals(250, TriesScale.scaled(1000));
    assertEquals(1, TriesScale.scaled(1));
    System.clearProperty(TriesScale.PROPERTY);
    assertEquals(1000, TriesScale.scaled(1000), "no scale: the tries as written");
    System.setProperty(TriesScale.PROPERTY, "2");
    assertEquals(2000, TriesScale.scaled(1000));
    for (String bad : new String[] {"0", "-1", "x", "NaN", "Infinity"}) {
      System.setProperty(TriesScale.PROPERTY, bad);
      assertThrows(IllegalArgumentException.class, () -> TriesScale.scaled(10), bad);
    }
  }
}
