package io.epochal.spouts.kafka;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Closes {@link TestBroker#shared()} when the JUnit Platform session ends, after the JUnit and jqwik engines ran and
 * before the JVM exits (a JVM shutdown hook raced with Kafka's own deletion of the broker's directories). Registered
 * in {@code META-INF/services}, also for the modules that use this test jar.
 */
public final class TestBrokerSessionListener implements LauncherSessionListener {
  /** Called by the JUnit Platform's service loader. */
  public TestBrokerSessionListener() {
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    try {
      TestBroker.closeShared();
    } catch (Exception e) {
      throw new IllegalStateException("cannot close the shared test broker", e);
    }
  }
}
