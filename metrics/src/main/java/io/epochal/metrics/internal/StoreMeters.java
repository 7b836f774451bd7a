package io.epochal.metrics.internal;

import io.epochal.metrics.EpochalMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The meters of one metered table store: a request timer per operation, table and outcome
 * ({@link EpochalMetrics#STORE_REQUESTS}), a failure counter per operation, table and error type
 * ({@link EpochalMetrics#STORE_FAILURES}) and row counters per kind and table ({@link EpochalMetrics#STORE_ROWS}).
 * Requests that concern no single table (leases, begin, commit, abort) carry {@code table="none"}. The timers of
 * those requests are registered at once; the others when a table is first used. Time comes from the registry's
 * clock.
 *
 * <p>Thread-safe: meters are created at most once per tag set and shared by every thread.
 */
final class StoreMeters {
  /** The {@code table} tag of requests that concern no single table. */
  static final String NO_TABLE = "none";

  /** A timed request kind; {@link #tag} is the value of the {@code op} tag. */
  enum Op {
    OPEN_TABLE("open_table"),
    FIND_TABLE("find_table"),
    ACQUIRE_LEASE("acquire_lease"),
    BEGIN("begin"),
    LOOKUP("lookup"),
    SCAN("scan"),
    COMMIT("commit"),
    ABORT("abort");

    final String tag;

    Op(String tag) {
      this.tag = tag;
    }
  }

  /** A counted row kind; {@link #tag} is the value of the {@code op} tag of the row counter. */
  enum Rows {
    READ("read"),
    UPSERT("upsert"),
    DELETE("delete");

    final String tag;

    Rows(String tag) {
      this.tag = tag;
    }
  }

  private record TimerKey(Op op, String table, boolean ok) {
  }

  private record RowKey(Rows kind, String table) {
  }

  private record FailureKey(Op op, String table, String error) {
  }

  private final MeterRegistry registry;
  private final String store;
  private final ConcurrentMap<TimerKey, Timer> timers = new ConcurrentHashMap<>();
  private final ConcurrentMap<RowKey, Counter> rows = new ConcurrentHashMap<>();
  private final ConcurrentMap<FailureKey, Counter> failures = new ConcurrentHashMap<>();

  StoreMeters(MeterRegistry registry, String store) {
    this.registry = registry;
    this.store = store;
    for (Op op : new Op[] {Op.ACQUIRE_LEASE, Op.BEGIN, Op.COMMIT, Op.ABORT}) {
      timer(op, NO_TABLE, true);
      timer(op, NO_TABLE, false);
    }
  }

  private Timer timer(Op op, String table, boolean ok) {
    return timers.computeIfAbsent(new TimerKey(op, table, ok), k -> Timer.builder(EpochalMetrics.STORE_REQUESTS)
        .description("table store requests by operation, table and outcome")
        .tags("store", store, "op", op.tag, "table", table, "outcome", ok ? "ok" : "error")
        .publishPercentiles(0.5, 0.99)
        .register(registry));
  }

  private Counter failure(Op op, String table, Throwable error) {
    return failures.computeIfAbsent(new FailureKey(op, table, ErrorTypes.of(error)),
        k -> Counter.builder(EpochalMetrics.STORE_FAILURES)
            .description("failed table store requests by operation, table and error type")
            .tags("store", store, "op", op.tag, "table", table, "error", k.error())
            .register(registry));
  }

  /** Adds {@code n} rows of {@code kind} to table {@code table}'s row counter. */
  void rows(Rows kind, String table, long n) {
    rows.computeIfAbsent(new RowKey(kind, table), k -> Counter.builder(EpochalMetrics.STORE_ROWS)
        .description("rows read, upserted and deleted")
        .tags("store", store, "op", kind.tag, "table", table)
        .register(registry))
        .increment(n);
  }

  /**
   * Runs {@code request}, records its duration under {@code outcome=ok} or, if it throws, under
   * {@code outcome=error} plus one failure of its error type, and returns or rethrows what the request did.
   */
  <T> T time(Op op, String table, Supplier<T> request) {
    long started = registry.config().clock().monotonicTime();
    try {
      T out = request.get();
      timer(op, table, true).record(registry.config().clock().monotonicTime() - started, TimeUnit.NANOSECONDS);
      return out;
    } catch (RuntimeException | Error e) {
      timer(op, table, false).record(registry.config().clock().monotonicTime() - started, TimeUnit.NANOSECONDS);
      failure(op, table, e).increment();
      throw e;
    }
  }

  /** {@link #time(Op, String, Supplier)} for a request without a result. */
  void time(Op op, String table, Runnable request) {
    time(op, table, () -> {
      request.run();
      return null;
    });
  }
}
