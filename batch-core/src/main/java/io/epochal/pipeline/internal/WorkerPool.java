package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * The worker threads of one pipeline (daemon threads named {@code epochal-<pipeline>-N}), or none when it runs on
 * one thread: then every task runs on the caller. Tasks run under the submitting thread's slf4j MDC
 * ({@link LogContext}), so their logs name the pipeline and the txid; the last partition of a
 * {@link #forEachPartition} runs on the caller. Used by the coordinator thread only.
 */
final class WorkerPool implements AutoCloseable {
  private final String pipeline;
  /** Null with one thread. */
  private final ExecutorService pool;

  WorkerPool(String pipeline, int threads) {
    this.pipeline = pipeline;
    this.pool = threads > 1 ? Executors.newFixedThreadPool(threads, daemonThreads(pipeline)) : null;
  }

  /** Runs {@code task} on the pool, or at once on the caller without one; its failure completes the future. */
  <T> Future<T> schedule(Supplier<T> task) {
    if (pool == null) {
      try {
        return CompletableFuture.completedFuture(task.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return CompletableFuture.supplyAsync(LogContext.supplier(task), pool);
  }

  /**
   * Runs {@code task} for every partition {@code selected} of {@code count}, in parallel, and waits for all of them:
   * every selected partition but the last on the pool, the last on the calling thread (which would otherwise only
   * wait, while a process phase queued before may hold a pool thread); rethrows the first failure in partition order
   * (an {@link Error} before any exception), once every task has ended.
   */
  void forEachPartition(int count, IntPredicate selected, IntConsumer task) {
    if (pool == null || count == 1) {
      for (int p = 0; p < count; p++) {
        if (selected.test(p)) {
          task.accept(p);
        }
      }
      return;
    }
    int last = -1;
    for (int p = count - 1; p >= 0 && last < 0; p--) {
      if (selected.test(p)) {
        last = p;
      }
    }
    List<Future<?>> futures = new ArrayList<>(count);
    for (int p = 0; p < last; p++) {
      if (selected.test(p)) {
        int partition = p;
        futures.add(pool.submit(LogContext.callable(() -> task.accept(partition))));
      }
    }
    Throwable here = null;
    if (last >= 0) {
      try {
        task.accept(last);
      } catch (RuntimeException | Error e) {
        here = e;
      }
    }
    Throwable first = null;
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        first = firstOf(first, e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        first = first != null ? first : new EpochalException("interrupted while waiting for partitions", e, false,
            ErrorContext.NONE.withPipeline(pipeline));
      }
    }
    if (here != null) {
      first = firstOf(first, here);
    }
    if (first != null) {
      Failures.throwUnchecked(first);
    }
  }

  /** Of the failure so far ({@code first}) and a task's {@code cause}: the one to rethrow (an Error wins). */
  private Throwable firstOf(Throwable first, Throwable cause) {
    if (first == null || cause instanceof Error && !(first instanceof Error)) {
      return cause instanceof RuntimeException || cause instanceof Error ? cause
          : new EpochalException("a partition task failed: " + cause, cause, EpochalException.isRetryable(cause),
              ErrorContext.NONE.withPipeline(pipeline));
    }
    return first;
  }

  /** Interrupts and stops the threads. */
  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  private static ThreadFactory daemonThreads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "epochal-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
