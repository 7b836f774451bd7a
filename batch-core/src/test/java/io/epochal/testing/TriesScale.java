package io.epochal.testing;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * A jqwik hook for the slowest properties (registered per class with {@code @AddLifecycleHook(TriesScale.class)}):
 * runs {@code tries x epochal.tries.scale} tries (at least 1), where {@code tries} is the property's own
 * {@code @Property(tries = N)} or, without one, {@code jqwik.tries.default} ({@code -Depochal.tries}). The parent POM
 * sets the scale for the default build; {@code -Depochal.tries.scale=1} runs every scaled property in full. A property
 * with a fixed {@code seed} is left alone (its tries are part of what it shows). Stateless, so thread-safe.
 */
public final class TriesScale implements AroundPropertyHook {
  /** The system property holding the scale (a decimal number above 0; 1 when absent). */
  public static final String PROPERTY = "epochal.tries.scale";

  /** jqwik's constructor. */
  public TriesScale() {
  }

  /** Applies to every property of the class it is added to, nested containers included. */
  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS;
  }

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    if (context.attributes().seed().filter(s -> !s.isEmpty()).isEmpty()) {
      int tries = context.attributes().tries().orElseGet(() -> Integer.getInteger("jqwik.tries.default", 1000));
      context.attributes().setTries(scaled(tries));
    }
    return property.execute();
  }

  /** {@code tries} times the scale, at least 1; fails loudly on a scale that is not a number above 0. */
  static int scaled(int tries) {
    String raw = System.getProperty(PROPERTY, "1");
    double scale;
    try {
      scale = Double.parseDouble(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + PROPERTY + " must be a number above 0, not '" + raw + "'", e);
    }
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("-D" + PROPERTY + " must be a number above 0, not '" + raw + "'");
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(tries * scale)));
  }
}
