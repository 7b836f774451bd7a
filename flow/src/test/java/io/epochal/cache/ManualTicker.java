package io.epochal.cache;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when a test advances it. Thread-safe. */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves time forward by {@code d}. */
  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
