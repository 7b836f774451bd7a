package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import java.util.Objects;
import java.util.Optional;

/**
 * Declares a set of timers for {@link ProcessorContext#timers}: its name (unique among the computation's states and
 * timers), its {@link TimeDomain}, the codec of the keys (stored as bytes in the timer tables), an optional payload
 * codec, and the paging bounds.
 *
 * <p><b>Storage.</b> The timers live in three internal tables of the pipeline's table store,
 * {@code <pipeline>/<computation>/<name>.timers} (one row per pending timer, by (partition, trigger, key bytes)),
 * {@code .timer-slots} (the timers of one trigger time, numbered in the order they were added) and
 * {@code .timer-tree} (per partition, counts of pending timers over a 64-ary tree of trigger-time ranges, so that a
 * batch finds the due trigger times with a few bulk lookups). Each table is claimed like a state's.
 *
 * <p><b>Paging.</b> A batch reads the due timers a page at a time ({@link Builder#pageSize}, default 1024 timers per
 * lookup) and fires at most {@link Builder#maxFiredPerBatch} (default 10 000) per partition; the rest fire in the
 * following batches, still in trigger order. The heap a batch needs is bounded by these two numbers, whatever the
 * number of pending timers.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <K> the key type
 * @param <P> the payload type ({@link Void} without payloads)
 * @since 0.5.0
 */
@Evolving
public final class TimerSpec<K, P> {
  private final String name;
  private final TimeDomain domain;
  private final Codec<K> keys;
  private final Codec<P> payloads;
  private final int pageSize;
  private final int maxFiredPerBatch;

  private TimerSpec(Builder<K, P> b) {
    this.name = b.name;
    this.domain = b.domain;
    this.keys = b.keys;
    this.payloads = b.payloads;
    this.pageSize = b.pageSize;
    this.maxFiredPerBatch = b.maxFiredPerBatch;
  }

  /**
   * Starts a spec of timers without payloads.
   *
   * @param name unique among the computation's states and timers; part of the tables' paths
   * @param domain the time the triggers are read on
   * @param keys encodes the processor's keys (decoded again for {@link KeyedProcessor#onTimer})
   * @param <K> the key type
   * @return a builder with the default paging bounds; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}
   */
  public static <K> Builder<K, Void> of(String name, TimeDomain domain, Codec<K> keys) {
    return new Builder<>(name, domain, keys, null);
  }

  /**
   * Like {@link #of(String, TimeDomain, Codec)}, for timers carrying a payload encoded by {@code payloads}.
   *
   * @param name unique among the computation's states and timers; part of the tables' paths
   * @param domain the time the triggers are read on
   * @param keys encodes the processor's keys (decoded again for {@link KeyedProcessor#onTimer})
   * @param payloads encodes the payloads into the {@code .timers} table and decodes them for {@link Timer#payload}
   * @param <K> the key type
   * @param <P> the payload type
   * @return a builder with the default paging bounds; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}
   */
  public static <K, P> Builder<K, P> withPayload(String name, TimeDomain domain, Codec<K> keys, Codec<P> payloads) {
    return new Builder<>(name, domain, keys, Objects.requireNonNull(payloads, "payloads"));
  }

  /** @return the name */
  public String name() {
    return name;
  }

  /** @return the time domain */
  public TimeDomain domain() {
    return domain;
  }

  /** @return the key codec */
  public Codec<K> keys() {
    return keys;
  }

  /** @return the payload codec, empty for timers without payloads */
  public Optional<Codec<P>> payloads() {
    return Optional.ofNullable(payloads);
  }

  /** @return the most timers read in one lookup */
  public int pageSize() {
    return pageSize;
  }

  /** @return the most timers one partition fires in one batch */
  public int maxFiredPerBatch() {
    return maxFiredPerBatch;
  }

  @Override
  public String toString() {
    return "TimerSpec[" + name + ", " + domain + ", keys " + keys.id()
        + (payloads == null ? "" : ", payloads " + payloads.id()) + "]";
  }

  /**
   * Builds a {@link TimerSpec}. Not thread-safe.
   *
   * @param <K> the key type
   * @param <P> the payload type
   */
  public static final class Builder<K, P> {
    private final String name;
    private final TimeDomain domain;
    private final Codec<K> keys;
    private final Codec<P> payloads;
    private int pageSize = 1024;
    private int maxFiredPerBatch = 10_000;

    private Builder(String name, TimeDomain domain, Codec<K> keys, Codec<P> payloads) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank() || name.contains("/")) {
        throw new IllegalArgumentException("timer spec name '" + name + "' must be non-blank and hold no '/'");
      }
      this.name = name;
      this.domain = Objects.requireNonNull(domain, "domain");
      this.keys = Objects.requireNonNull(keys, "keys");
      this.payloads = payloads;
    }

    /**
     * The most timers read from the store in one lookup (default 1024).
     *
     * @param pageSize the most timer slots of one trigger read in one lookup, in {@code [1, 65536]}
     * @return this builder
     * @throws IllegalArgumentException if not in {@code [1, 65536]}
     */
    public Builder<K, P> pageSize(int pageSize) {
      if (pageSize < 1 || pageSize > 65_536) {
        throw new IllegalArgumentException("pageSize must be in [1, 65536], was " + pageSize);
      }
      this.pageSize = pageSize;
      return this;
    }

    /**
     * The most timers one partition fires in one batch (default 10 000); the rest fire in later batches.
     *
     * @param max the most timers of this spec one partition fires in one batch, at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder<K, P> maxFiredPerBatch(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxFiredPerBatch must be >= 1, was " + max);
      }
      this.maxFiredPerBatch = max;
      return this;
    }

    /** @return the spec */
    public TimerSpec<K, P> build() {
      return new TimerSpec<>(this);
    }
  }
}
