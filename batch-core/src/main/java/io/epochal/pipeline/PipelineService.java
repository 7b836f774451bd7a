package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pipeline run as a long-lived service: on its own thread it builds the pipeline from a declaration, runs it until
 * {@link #close()} (or SIGTERM, with {@link #stopOnShutdown()}), waiting for input when the spouts are idle, and
 * rebuilds it after a retryable failure under a {@link RestartPolicy}; a failure no restart fixes stops it
 * ({@link PipelineHealth.State#FAILED}, {@link #failure()}).
 *
 * <p>A stop is graceful: the batch whose commit has begun finishes committing, the batches behind it are discarded
 * (nothing of them is durable), so a stopped service never leaves half a batch; a new service (or process) over the
 * same stores resumes after the last committed txid. A restart builds a new pipeline from {@code declaration}, which
 * must therefore declare the same pipeline over the same stores each time it is called.
 *
 * <p>Thread-safe: {@link #health()}, {@link #healthWithLag()}, {@link #close()} and {@link #awaitTermination} may be
 * called from any thread.
 *
 * @since 0.1.0
 */
@Stable
public final class PipelineService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineService.class);

  private final String name;
  private final Supplier<PipelineBuilder> declaration;
  private final RestartPolicy restarts;
  private final Duration idleWait;
  private final Duration stopTimeout;
  private final Clock clock;
  private final Thread thread;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // guarded by lock
  private PipelineHealth.State state = PipelineHealth.State.STARTING;
  private long lastTxid;
  private Instant lastCommitAt;
  private int restartCount;
  private Throwable failure;
  private boolean stopRequested;
  private boolean started;
  private boolean finished;
  private Pipeline current;
  private Thread shutdownHook;
  /** A batch committed since the last restart (written by the listener on the service thread). */
  private boolean committedSince;

  private PipelineService(Builder b) {
    this.name = b.name;
    this.declaration = b.declaration;
    this.restarts = b.restarts;
    this.idleWait = b.idleWait;
    this.stopTimeout = b.stopTimeout;
    this.clock = b.clock;
    this.thread = new Thread(this::serve, "epochal-service-" + name);
  }

  /**
   * Starts declaring a service named {@code name} (used in logs and thread names); {@code declaration} returns a
   * fresh builder of the pipeline each time the service (re)builds it.
   *
   * @param name the service's name
   * @param declaration returns a new builder of the same pipeline over the same stores at each call
   * @return a builder of the service
   */
  public static Builder builder(String name, Supplier<PipelineBuilder> declaration) {
    return new Builder(name, declaration);
  }

  /**
   * Starts the service thread; returns at once.
   *
   * @return this service
   * @throws IllegalStateException if started before
   */
  public PipelineService start() {
    lock.lock();
    try {
      if (started) {
        throw new IllegalStateException("service '" + name + "' was started already");
      }
      started = true;
    } finally {
      lock.unlock();
    }
    thread.start();
    return this;
  }

  /**
   * Registers a JVM shutdown hook (run on SIGTERM and SIGINT) that stops the service gracefully. Idempotent.
   *
   * @return this service
   */
  public PipelineService stopOnShutdown() {
    lock.lock();
    try {
      if (shutdownHook == null) {
        shutdownHook = new Thread(this::close, "epochal-service-" + name + "-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
      }
    } finally {
      lock.unlock();
    }
    return this;
  }

  /**
   * A snapshot of the service's state, last commit, restarts and last failure; cheap, never blocks on a source
   * ({@link PipelineHealth#sourceLag()} is empty: see {@link #healthWithLag()}).
   *
   * @return the snapshot
   */
  public PipelineHealth health() {
    return snapshot(List.of());
  }

  /**
   * {@link #health()} plus the lag of each source of the running pipeline that can tell it, read now on the calling
   * thread ({@link Pipeline#sourceLag()}: a failed read is listed as such, never as 0); may block up to the sources'
   * own timeouts (Kafka: at most 10 s), so keep it off a probe that must answer at once. While no pipeline runs
   * (starting, restarting after a failure, stopped) the lag is empty: unknown.
   *
   * @return the snapshot with the lag
   * @since 0.5.0
   */
  public PipelineHealth healthWithLag() {
    Pipeline running;
    lock.lock();
    try {
      running = state == PipelineHealth.State.RUNNING ? current : null;
    } finally {
      lock.unlock();
    }
    List<SourceLag> lag = running == null ? List.of() : running.sourceLag();
    return snapshot(lag);
  }

  private PipelineHealth snapshot(List<SourceLag> lag) {
    lock.lock();
    try {
      return new PipelineHealth(state, lastTxid, Optional.ofNullable(lastCommitAt), restartCount,
          Optional.ofNullable(failure).map(f -> f.getClass().getSimpleName() + ": " + f.getMessage()), lag);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The failure that stopped the service.
   *
   * @return the failure, when the service is {@link PipelineHealth.State#FAILED}; empty otherwise
   */
  public Optional<Throwable> failure() {
    lock.lock();
    try {
      return state == PipelineHealth.State.FAILED ? Optional.of(failure) : Optional.empty();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the service thread ended (stopped or failed), at most {@code timeout}.
   *
   * @param timeout how long to wait at most
   * @return true if it ended (also when it was closed before it started); false on timeout
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!finished && (started || !stopRequested)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the service gracefully and waits for it, at most the builder's {@code stopTimeout}: the batch being
   * committed finishes, nothing after it starts. Idempotent; callable from any thread.
   */
  @Override
  public void close() {
    Pipeline running;
    lock.lock();
    try {
      stopRequested = true;
      if (state != PipelineHealth.State.FAILED && state != PipelineHealth.State.STOPPED) {
        state = PipelineHealth.State.STOPPING;
      }
      running = current;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (running != null) {
      running.requestStop();
    }
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      if (!awaitTermination(stopTimeout)) {
        LOG.warn("service '{}' did not stop within {}: its batch is still committing", name, stopTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    removeShutdownHook();
  }

  // ---------------------------------------------------------------- the service thread

  private void serve() {
    int consecutive = 0;
    try {
      while (!stopping()) {
        Throwable failed = runOnce();
        if (failed == null) {
          break; // stopped on request
        }
        boolean restartable = restartable(failed);
        consecutive = takeCommittedSince() ? 1 : consecutive + 1;
        if (!restartable || consecutive > restarts.maxConsecutiveRestarts()) {
          fail(failed, restartable ? "after " + (consecutive - 1) + " consecutive restarts" : "no restart fixes it");
          return;
        }
        Duration backoff = restarts.backoffBefore(consecutive);
        LOG.warn("service '{}': pipeline failed ({}), restart {} in {}", name, failed.toString(), consecutive,
            backoff);
        set(PipelineHealth.State.RESTARTING, failed);
        if (waitFor(backoff)) {
          break; // stop requested during the backoff
        }
        lock.lock();
        try {
          restartCount++;
        } finally {
          lock.unlock();
        }
      }
      set(PipelineHealth.State.STOPPED, null);
      LOG.info("service '{}' stopped after committed txid {}", name, health().lastCommittedTxid());
    } catch (RuntimeException | Error e) {
      fail(e, "the service itself failed");
      throw e;
    } finally {
      lock.lock();
      try {
        finished = true;
        current = null;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Builds and runs the pipeline until a stop is requested (null) or it fails (the failure). */
  private Throwable runOnce() {
    set(PipelineHealth.State.STARTING, null);
    try (Pipeline p = declaration.get().listener(new PipelineListener() {
      @Override
      public void onBatchCommitted(BatchReport report) {
        committed(report.txid());
      }
    }).build()) {
      lock.lock();
      try {
        current = p;
        lastTxid = Math.max(lastTxid, p.lastCommittedTxid());
        if (stopRequested) {
          return null;
        }
        state = PipelineHealth.State.RUNNING;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      while (!stopping()) {
        RunSummary run = p.runUntilIdle();
        if (run.batches() == 0 && waitFor(idleWait)) {
          break;
        }
      }
      return null;
    } catch (IllegalStateException e) {
      // a run after close() requested the stop refuses with this; anything else is a failure
      return stopping() ? null : e;
    } catch (RuntimeException | Error e) {
      return e;
    } finally {
      lock.lock();
      try {
        current = null;
      } finally {
        lock.unlock();
      }
    }
  }

  private void committed(long txid) {
    lock.lock();
    try {
      committedSince = true;
      lastTxid = txid;
      lastCommitAt = clock.instant();
    } finally {
      lock.unlock();
    }
  }

  private boolean takeCommittedSince() {
    lock.lock();
    try {
      boolean was = committedSince;
      committedSince = false;
      return was;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether a rebuilt pipeline may succeed: the failure is retryable, or it is a batch whose retries were exhausted
   * by a retryable cause (an outage longer than the retry policy).
   */
  static boolean restartable(Throwable failure) {
    if (failure instanceof BatchFailedException b) {
      return b.getCause() != null && EpochalException.isRetryable(b.getCause());
    }
    return EpochalException.isRetryable(failure);
  }

  private void fail(Throwable failed, String why) {
    LOG.error("service '{}' stops ({}): {}", name, why, failed.toString(), failed);
    set(PipelineHealth.State.FAILED, failed);
  }

  private boolean stopping() {
    lock.lock();
    try {
      return stopRequested;
    } finally {
      lock.unlock();
    }
  }

  /** Waits {@code d} unless a stop is requested first; true if it was. */
  private boolean waitFor(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    lock.lock();
    try {
      while (!stopRequested) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Moves to {@code s} (a stop in progress only gives way to STOPPED or FAILED), recording {@code f} if given. */
  private void set(PipelineHealth.State s, Throwable f) {
    lock.lock();
    try {
      if (state == PipelineHealth.State.STOPPING && s != PipelineHealth.State.STOPPED
          && s != PipelineHealth.State.FAILED) {
        return;
      }
      state = s;
      if (f != null) {
        failure = f;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void removeShutdownHook() {
    Thread hook;
    lock.lock();
    try {
      hook = shutdownHook;
      shutdownHook = null;
    } finally {
      lock.unlock();
    }
    if (hook != null && Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down already: the hook runs or ran
      }
    }
  }

  @Override
  public String toString() {
    return "PipelineService[" + name + ", " + health().state() + "]";
  }

  /** Settings of a {@link PipelineService}. Not thread-safe; build once. */
  public static final class Builder {
    private final String name;
    private final Supplier<PipelineBuilder> declaration;
    private RestartPolicy restarts = RestartPolicy.defaults();
    private Duration idleWait = Duration.ofMillis(200);
    private Duration stopTimeout = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();

    private Builder(String name, Supplier<PipelineBuilder> declaration) {
      this.name = Objects.requireNonNull(name, "name");
      this.declaration = Objects.requireNonNull(declaration, "declaration");
    }

    /**
     * How failures are restarted; {@link RestartPolicy#defaults()} unless set.
     *
     * @param policy the restart policy
     * @return this builder
     */
    public Builder restartPolicy(RestartPolicy policy) {
      this.restarts = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * How long to wait before polling idle spouts again; 200 ms unless set.
     *
     * @param wait the wait, positive
     * @return this builder
     */
    public Builder idleWait(Duration wait) {
      this.idleWait = positive(wait, "idleWait");
      return this;
    }

    /**
     * How long {@link PipelineService#close()} waits for the service to stop; 30 s unless set.
     *
     * @param timeout the wait, positive
     * @return this builder
     */
    public Builder stopTimeout(Duration timeout) {
      this.stopTimeout = positive(timeout, "stopTimeout");
      return this;
    }

    /**
     * The clock of {@link PipelineHealth#lastCommitAt()}; the system UTC clock unless set.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The service, not started.
     *
     * @return a new service
     */
    public PipelineService build() {
      return new PipelineService(this);
    }

    private static Duration positive(Duration d, String what) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }
  }
}
