package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.KeyCodec;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Declares a read-write state for {@link ProcessorContext#state}: its name, its key and value mappings, its default
 * value, and where it lives.
 *
 * <ul>
 *   <li>{@link #internal}: the library creates and names the table, {@code <pipeline>/<computation>/<state>}, with
 *       the key codec's columns after {@code hash}, one {@code value bytes} column holding the codec's encoding, and
 *       the attributes {@code epochal.key}, {@code epochal.codec} and {@code epochal.layout} (a table written with
 *       another key mapping, codec or layout is refused with {@link io.epochal.errors.SchemaMismatchException}).</li>
 *   <li>{@link #external}: a table the user created. It must exist; its user key columns must equal the key codec's
 *       columns and it must have every value column of the layout ({@link Builder#layout}, default one
 *       {@code value bytes} column), with the same types. Value columns the layout does not know are written as
 *       null.</li>
 * </ul>
 *
 * <p>Emptiness: a value equal to the default value, or empty by the layout's or {@link Builder#emptyWhen}'s rule, is
 * empty: it is stored as no row. Caching: by default the state's committed values stay in the shared
 * {@link io.epochal.cache.StateCache} between epochs ({@link Builder#cached}); this is safe because a state is its
 * table's only writer.
 *
 * <p>Expiry: with {@link Builder#ttl} a key not written for the TTL reads as absent and is deleted in a later epoch
 * (see {@link StateTtl}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param <K> the key type
 * @param <S> the state type; values must be immutable and have a meaningful {@code equals}
 * @since 0.1.0
 */
@Evolving
public final class StateSpec<K, S> {
  private final String name;
  private final String externalPath;
  private final KeyCodec<K> keys;
  private final Codec<S> codec;
  private final S defaultValue;
  private final CellLayout<S> layout;
  private final Predicate<? super S> emptyWhen;
  private final boolean cached;
  private final StateTtl ttl;

  private StateSpec(Builder<K, S> b) {
    this.name = b.name;
    this.externalPath = b.externalPath;
    this.keys = b.keys;
    this.codec = b.codec;
    this.defaultValue = b.defaultValue;
    this.layout = b.layout == null ? CellLayout.plain(b.codec, v -> false) : b.layout;
    this.emptyWhen = b.emptyWhen;
    this.cached = b.cached == null || b.cached;
    this.ttl = b.ttl == null ? null : new StateTtl(b.ttl, b.ttlDomain,
        b.maxExpirations == null ? StateTtl.DEFAULT_MAX_EXPIRATIONS_PER_BATCH : b.maxExpirations);
  }

  /**
   * Starts an internal state: the library creates its table.
   *
   * @param name the state's name, unique within the computation; part of the table's path
   * @param keys maps the processor's keys to the table's key columns
   * @param codec encodes values into the table and the cache
   * @param defaultValue the value of an empty state
   * @param <K> the key type
   * @param <S> the state type
   * @return a builder; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}
   */
  public static <K, S> Builder<K, S> internal(String name, KeyCodec<K> keys, Codec<S> codec, S defaultValue) {
    return new Builder<>(name, null, keys, codec, defaultValue);
  }

  /**
   * Starts an external state: values live in the user-created table at {@code tablePath}.
   *
   * @param name the state's name, unique within the computation
   * @param tablePath the path of the user's table; it must exist when the pipeline is built, and the state claims it
   *     for writing
   * @param keys maps the processor's keys to the table's user key columns, which must equal the codec's columns
   * @param codec encodes values into the cache (and into the table, with the default layout)
   * @param defaultValue the value of an empty state (a key without a row)
   * @param <K> the key type
   * @param <S> the state type
   * @return a builder; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or {@code tablePath} is blank
   */
  public static <K, S> Builder<K, S> external(String name, String tablePath, KeyCodec<K> keys, Codec<S> codec,
      S defaultValue) {
    Objects.requireNonNull(tablePath, "tablePath");
    if (tablePath.isBlank()) {
      throw new IllegalArgumentException("tablePath must not be blank");
    }
    return new Builder<>(name, tablePath, keys, codec, defaultValue);
  }

  /** @return the state's name */
  public String name() {
    return name;
  }

  /** @return the user table's path for an external state; empty for an internal state */
  public Optional<String> externalTablePath() {
    return Optional.ofNullable(externalPath);
  }

  /** @return the key mapping */
  public KeyCodec<K> keys() {
    return keys;
  }

  /** @return the codec of values in the cache (and in the table, with the default layout) */
  public Codec<S> codec() {
    return codec;
  }

  /** @return the value of an empty state */
  public S defaultValue() {
    return defaultValue;
  }

  /** @return how values map to value columns */
  public CellLayout<S> layout() {
    return layout;
  }

  /** @return whether the state keeps its committed values in the shared cache between epochs */
  public boolean cached() {
    return cached;
  }

  /**
   * @return the state's time to live; empty for a state whose keys never expire
   * @since 0.5.0
   */
  public Optional<StateTtl> ttl() {
    return Optional.ofNullable(ttl);
  }

  /**
   * Tells whether a value is stored as no row.
   *
   * @param value a value of the state; not null
   * @return whether {@code value} is empty: equal to the default, or empty by the layout's or the state's rule
   */
  public boolean isEmpty(S value) {
    return value.equals(defaultValue) || layout.isEmpty(value) || (emptyWhen != null && emptyWhen.test(value));
  }

  @Override
  public String toString() {
    return "StateSpec[" + name + (externalPath == null ? ", internal" : ", external " + externalPath) + ", "
        + codec.id() + "]";
  }

  /**
   * Builds a {@link StateSpec}. Options may be set once ({@link IllegalStateException} otherwise). Not thread-safe.
   *
   * @param <K> the key type
   * @param <S> the state type
   */
  public static final class Builder<K, S> {
    private final String name;
    private final String externalPath;
    private final KeyCodec<K> keys;
    private final Codec<S> codec;
    private final S defaultValue;
    private CellLayout<S> layout;
    private Predicate<? super S> emptyWhen;
    private Boolean cached;
    private java.time.Duration ttl;
    private TimeDomain ttlDomain;
    private Integer maxExpirations;

    private Builder(String name, String externalPath, KeyCodec<K> keys, Codec<S> codec, S defaultValue) {
      this.name = checkName(name);
      this.externalPath = externalPath;
      this.keys = Objects.requireNonNull(keys, "keys");
      this.codec = Objects.requireNonNull(codec, "codec");
      this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
    }

    static String checkName(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank() || name.contains("/")) {
        throw new IllegalArgumentException("state name '" + name + "' must be non-blank and hold no '/'");
      }
      return name;
    }

    /**
     * How values map to the table's value columns (default: one {@code value bytes} column, codec-encoded). For an
     * external table with columns of its own. The layout's {@code txidColumn} is ignored.
     *
     * @param layout writes a value into the table's value columns and reads it back
     * @return this builder
     * @throws NullPointerException if {@code layout} is null
     * @throws IllegalStateException if already set
     */
    public Builder<K, S> layout(CellLayout<S> layout) {
      if (this.layout != null) {
        throw new IllegalStateException("layout was already set to " + this.layout);
      }
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /**
     * The state type's own emptiness rule, besides equality with the default value.
     *
     * @param isEmpty true for a value to store as no row (a state set to it is cleared)
     * @return this builder
     * @throws NullPointerException if {@code isEmpty} is null
     * @throws IllegalStateException if already set
     */
    public Builder<K, S> emptyWhen(Predicate<? super S> isEmpty) {
      if (emptyWhen != null) {
        throw new IllegalStateException("emptyWhen was already set");
      }
      emptyWhen = Objects.requireNonNull(isEmpty, "isEmpty");
      return this;
    }

    /**
     * Whether committed values stay in the shared cache between epochs (default true).
     *
     * @param cached true to keep committed values in the shared cache (a hit needs no value lookup in later
     *     epochs); false to look the value of every key of every batch up in the table
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder<K, S> cached(boolean cached) {
      if (this.cached != null) {
        throw new IllegalStateException("cached was already set to " + this.cached);
      }
      this.cached = cached;
      return this;
    }

    /**
     * Expires keys not written for {@code ttl} of {@code domain} time (see {@link StateTtl}). The deadlines live in
     * the internal table {@code <pipeline>/<computation>/<state>.ttl-deadlines} and in a hidden set of timers
     * ({@code <state>.ttl.timers}, {@code .ttl.timer-slots}, {@code .ttl.timer-tree}), claimed like the state's
     * table; like timers, a state with a TTL needs the epoch protocol. {@link TimeDomain#EVENT_TIME} needs a
     * computation with a {@link WatermarkStrategy}.
     *
     * @param ttl how long a key lives after its last write, at least 1 ms (millisecond precision)
     * @param domain the time the TTL is measured in: {@link TimeDomain#PROCESSING_TIME} (the {@link TimerClock}) or
     *     {@link TimeDomain#EVENT_TIME} (the watermark)
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     * @throws IllegalStateException if already set
     * @since 0.5.0
     */
    public Builder<K, S> ttl(java.time.Duration ttl, TimeDomain domain) {
      if (this.ttl != null) {
        throw new IllegalStateException("ttl was already set to " + this.ttl);
      }
      Objects.requireNonNull(ttl, "ttl");
      Objects.requireNonNull(domain, "domain");
      if (ttl.toMillis() < 1) {
        throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
      }
      this.ttl = ttl;
      this.ttlDomain = domain;
      return this;
    }

    /**
     * The most keys one partition expires in one batch (default
     * {@value StateTtl#DEFAULT_MAX_EXPIRATIONS_PER_BATCH}); the rest expire in the next batches (they read as absent
     * meanwhile). Needs {@link #ttl}.
     *
     * @param max the most keys one partition expires (deletes) in one batch, at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     * @throws IllegalStateException if already set
     * @since 0.5.0
     */
    public Builder<K, S> maxExpirationsPerBatch(int max) {
      if (maxExpirations != null) {
        throw new IllegalStateException("maxExpirationsPerBatch was already set to " + maxExpirations);
      }
      if (max < 1) {
        throw new IllegalArgumentException("maxExpirationsPerBatch must be >= 1, was " + max);
      }
      maxExpirations = max;
      return this;
    }

    /**
     * Makes the spec.
     *
     * @return the spec; the builder is unchanged
     * @throws IllegalStateException if {@link #maxExpirationsPerBatch} was set without {@link #ttl}
     */
    public StateSpec<K, S> build() {
      if (maxExpirations != null && ttl == null) {
        throw new IllegalStateException("maxExpirationsPerBatch of state '" + name + "' needs a ttl");
      }
      return new StateSpec<>(this);
    }
  }
}
