package io.epochal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * {@link TriesScale} runs a scaled property's tries times {@code -Depochal.tries.scale} (0.25 in the default build: 10
 * of 40; the test fails there if the hook does not apply).
 */
@AddLifecycleHook(TriesScale.class)
class TriesScaleProperties {
  private final AtomicInteger runs = new AtomicInteger();

  @Property(tries = 40)
  void fortyTriesScaled(@ForAll long any) {
    runs.incrementAndGet();
  }

  @AfterProperty
  void ranTheScaledTries() {
    assertEquals(TriesScale.scaled(40), runs.get(), "tries of a @Property(tries = 40) at -D" + TriesScale.PROPERTY
        + "=" + System.getProperty(TriesScale.PROPERTY));
  }
}
