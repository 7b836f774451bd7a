package io.epochal.pipeline.internal;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.MDC;

/**
 * Carries the slf4j MDC (the pipeline's name, the batch's txid) from the coordinator thread to the worker threads
 * that work on the batch: a wrapped task runs with the MDC the submitting thread had when it was wrapped, and the
 * worker's own MDC is restored afterwards. Stateless; the MDC itself is per thread.
 */
final class LogContext {
  private LogContext() {
  }

  /** {@code task} wrapped to run under the caller's current MDC. */
  static <T> Supplier<T> supplier(Supplier<T> task) {
    Map<String, String> captured = MDC.getCopyOfContextMap();
    return () -> {
      Map<String, String> own = MDC.getCopyOfContextMap();
      set(captured);
      try {
        return task.get();
      } finally {
        set(own);
      }
    };
  }

  /** {@code task} wrapped to run under the caller's current MDC. */
  static Callable<Void> callable(Runnable task) {
    Supplier<Void> wrapped = supplier(() -> {
      task.run();
      return null;
    });
    return wrapped::get;
  }

  /** Puts {@code key}; returns the value it replaced (null if none), for {@link #restore}. */
  static String put(String key, String value) {
    String before = MDC.get(key);
    MDC.put(key, value);
    return before;
  }

  /** Restores {@code key} to what {@link #put} returned. */
  static void restore(String key, String before) {
    if (before == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, before);
    }
  }

  private static void set(Map<String, String> context) {
    if (context == null || context.isEmpty()) {
      MDC.clear();
    } else {
      MDC.setContextMap(context);
    }
  }
}
