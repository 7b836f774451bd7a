package io.epochal.examples;

import io.epochal.pipeline.Pipeline;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code --until stop}: a JVM shutdown hook (SIGTERM, Ctrl-C) that asks the running pipeline to stop at the next
 * batch boundary ({@link Pipeline#requestStop()}: the batch being committed finishes, nothing after it starts), waits
 * for the run to finish verifying and printing, and ends the process with the run's exit code (a plain shutdown would
 * end it with the signal's status instead). Thread-safe: the hook runs on its own thread, the run on the main one.
 */
final class StopOnSignal {
  /** How long the hook waits for the run to finish after the stop (its verification reads the topics back). */
  static final Duration FINISH_TIMEOUT = Duration.ofMinutes(2);

  private final AtomicBoolean requested = new AtomicBoolean();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final PrintStream out;
  private final Thread hook;
  private volatile Pipeline pipeline;
  private volatile int exitCode = Main.FAILED;

  private StopOnSignal(PrintStream out) {
    this.out = out;
    this.hook = new Thread(this::onSignal, "epochal-examples-stop");
  }

  /** Registers the shutdown hook. */
  static StopOnSignal install(PrintStream out) {
    StopOnSignal s = new StopOnSignal(out);
    Runtime.getRuntime().addShutdownHook(s.hook);
    return s;
  }

  /** The pipeline the hook stops, once built. */
  void running(Pipeline p) {
    pipeline = p;
    if (requested.get()) {
      p.requestStop();
    }
  }

  /** Whether a stop was asked for. */
  boolean requested() {
    return requested.get();
  }

  private void onSignal() {
    requested.set(true);
    Pipeline p = pipeline;
    if (p != null) {
      p.requestStop();
    }
    try {
      if (!finished.await(FINISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        out.println("stop: the run did not finish within " + FINISH_TIMEOUT.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(exitCode);
  }

  /**
   * The run ended with {@code code}: after a signal, the hook ends the process with it; otherwise the hook is removed.
   */
  void finish(int code) {
    exitCode = code;
    finished.countDown();
    if (!requested.get()) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down already: the hook ends it with the code just set
      }
    }
  }
}
