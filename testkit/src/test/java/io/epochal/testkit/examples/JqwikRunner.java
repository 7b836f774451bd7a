package io.epochal.testkit.examples;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one jqwik property the way a user's build would, and returns its failure: how the example tests show that a
 * property which must fail does fail, and what jqwik reports for the shrunk schedule. The property classes are nested
 * static classes, which surefire does not run on their own.
 */
final class JqwikRunner {
  private static final String RUNNING = "epochal.testkit.examples.launched";

  private JqwikRunner() {
  }

  /**
   * Put on a property class that must fail ({@code @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)}): it is
   * skipped unless {@link #failureOf} runs it (for example when {@code -Dtest=Catching*} selects it directly).
   */
  public static final class OnlyWhenLaunched implements SkipExecutionHook {
    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
      return Boolean.getBoolean(RUNNING) ? SkipResult.doNotSkip()
          : SkipResult.skip("a property that must fail; its example test runs it");
    }
  }

  /** @return the failure of property {@code method} of {@code container}, empty if it passed */
  static Optional<Throwable> failureOf(Class<?> container, String method) {
    java.lang.reflect.Method property = java.util.Arrays.stream(container.getDeclaredMethods())
        .filter(m -> m.getName().equals(method)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no method " + method + " in " + container));
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
        .selectors(selectMethod(container, property))
        .configurationParameter("jqwik.database", "target/jqwik-examples-database")
        .configurationParameter("jqwik.failures.runfirst", "false")
        .configurationParameter("jqwik.reporting.onlyfailures", "true")
        .build();
    List<Throwable> failures = new ArrayList<>();
    List<String> finished = new ArrayList<>();
    Launcher launcher = LauncherFactory.create();
    System.setProperty(RUNNING, "true");
    try {
      launcher.execute(request, new TestExecutionListener() {
      @Override
      public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (id.isTest()) {
          finished.add(id.getDisplayName());
          result.getThrowable().ifPresent(failures::add);
        }
      }
      });
    } finally {
      System.clearProperty(RUNNING);
    }
    if (finished.isEmpty()) {
      throw new AssertionError("property " + container.getName() + "#" + method + " did not run");
    }
    return failures.stream().findFirst();
  }
}
