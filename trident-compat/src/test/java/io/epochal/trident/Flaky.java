package io.epochal.trident;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.topology.FailedException;
import org.apache.storm.trident.operation.BaseFilter;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Values;

/**
 * Trident operations that fail some of their calls with Storm's {@link FailedException} (which fails the batch on
 * Storm; any exception fails the attempt on Epochal). Calls are counted JVM-wide per name, since Storm and Epochal
 * copy operations; every {@code every}-th call fails, so a replay eventually passes.
 */
final class Flaky {
  static final Map<String, AtomicLong> CALLS = new ConcurrentHashMap<>();
  static final Map<String, AtomicLong> FAILURES = new ConcurrentHashMap<>();

  private Flaky() {
  }

  static void check(String name, long every) {
    long n = CALLS.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    if (every > 0 && n % every == 0) {
      FAILURES.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
      throw new FailedException("injected failure #" + n + " of " + name);
    }
  }

  static long failures(String name) {
    AtomicLong f = FAILURES.get(name);
    return f == null ? 0 : f.get();
  }

  /** Storm's {@code Split}, failing every {@code every}-th sentence. */
  static final class Split extends BaseFunction {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final long every;

    Split(String name, long every) {
      this.name = name;
      this.every = every;
    }

    @Override
    public void execute(TridentTuple tuple, TridentCollector collector) {
      check(name, every);
      for (String word : tuple.getString(0).split(" ")) {
        collector.emit(new Values(word));
      }
    }
  }

  /** Keeps everything, failing every {@code every}-th tuple (placed after a state: the batch fails after writing). */
  static final class Filter extends BaseFilter {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final long every;

    Filter(String name, long every) {
      this.name = name;
      this.every = every;
    }

    @Override
    public boolean isKeep(TridentTuple tuple) {
      check(name, every);
      return true;
    }
  }
}
