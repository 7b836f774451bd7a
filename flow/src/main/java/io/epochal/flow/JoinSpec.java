package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.KeyCodec;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Declares a joiner for {@link ProcessorContext#joiner}: read-only, TTL-cached access to a table another writer owns.
 *
 * <ul>
 *   <li>{@link #table}: any table by path (another computation's external state, a table maintained outside the
 *       pipeline). It must exist and have the key codec's key columns and the layout's value columns.</li>
 *   <li>{@link #internalState}: the internal state {@code state} of computation {@code computation} in the same
 *       pipeline (table {@code <pipeline>/<computation>/<state>}; created empty if the writer has not run yet, with
 *       the schema the writer uses, so key codec and codec must be the writer's).</li>
 * </ul>
 *
 * <p>Loaded values (and absent rows) stay in the shared {@link io.epochal.cache.StateCache} for {@link Builder#ttl}
 * (default {@link #DEFAULT_TTL}) or until evicted; a joiner therefore sees the table as it was up to the TTL ago.
 *
 * <p>A joined state with a TTL ({@link StateSpec.Builder#ttl}; its table has the deadlines table
 * {@code <path>.ttl-deadlines} beside it) is read with the writer's rule: a row whose committed deadline is at or
 * before the joiner's read time reads as absent, also while the row waits for its expiration. The read time is the
 * joiner's processing time at the epoch (a processing-time TTL) or the writing computation's committed watermark (an
 * event-time TTL, read from its {@code .watermark} table beside the state; if that table does not exist, building
 * the pipeline, or the joiner's first epoch, fails with {@link IllegalStateException}). A cached value is not served past its deadline.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <K> the key type
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public final class JoinSpec<K, S> {
  /** The default TTL of joined entries: 1 minute. */
  public static final Duration DEFAULT_TTL = Duration.ofMinutes(1);

  private final String name;
  private final String tablePath;
  private final String computation;
  private final String state;
  private final KeyCodec<K> keys;
  private final Codec<S> codec;
  private final CellLayout<S> layout;
  private final Duration ttl;

  private JoinSpec(Builder<K, S> b) {
    this.name = b.name;
    this.tablePath = b.tablePath;
    this.computation = b.computation;
    this.state = b.state;
    this.keys = b.keys;
    this.codec = b.codec;
    this.layout = b.layout == null ? CellLayout.plain(b.codec, v -> false) : b.layout;
    this.ttl = b.ttl == null ? DEFAULT_TTL : b.ttl;
  }

  /**
   * Starts a joiner of the table at {@code tablePath}.
   *
   * @param name the joiner's name, unique among the computation's states and joiners
   * @param tablePath the path of the table to read; it must exist when the pipeline is built
   * @param keys maps a key to the table's key columns
   * @param codec encodes values in the cache's compressed level and, with the default layout, decodes the table's
   *     {@code value} column
   * @param <K> the key type
   * @param <S> the state type
   * @return a builder; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or {@code tablePath} is blank
   */
  public static <K, S> Builder<K, S> table(String name, String tablePath, KeyCodec<K> keys, Codec<S> codec) {
    Objects.requireNonNull(tablePath, "tablePath");
    if (tablePath.isBlank()) {
      throw new IllegalArgumentException("tablePath must not be blank");
    }
    return new Builder<>(name, tablePath, null, null, keys, codec);
  }

  /**
   * Starts a joiner of the internal state {@code state} of computation {@code computation} of the same pipeline.
   *
   * @param name the joiner's name, unique among the computation's states and joiners
   * @param computation the name of the computation that writes the state
   * @param state the name of the internal state, as the writing computation declares it
   * @param keys maps a key to the table's key columns; must be the writer's
   * @param codec decodes the state's values; must be the writer's
   * @param <K> the key type
   * @param <S> the state type
   * @return a builder; {@link Builder#build()} makes the spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if a name is blank or holds {@code /}
   */
  public static <K, S> Builder<K, S> internalState(String name, String computation, String state,
      KeyCodec<K> keys, Codec<S> codec) {
    StateSpec.Builder.checkName(state);
    Objects.requireNonNull(computation, "computation");
    if (computation.isBlank() || computation.contains("/")) {
      throw new IllegalArgumentException("computation name '" + computation + "' must be non-blank and hold no '/'");
    }
    return new Builder<>(name, null, computation, state, keys, codec);
  }

  /** @return the joiner's name */
  public String name() {
    return name;
  }

  /** @return the table path, or empty for a joiner of an internal state (resolved with the pipeline's name) */
  public Optional<String> tablePath() {
    return Optional.ofNullable(tablePath);
  }

  /** @return the computation whose internal state is joined, or empty for a joiner by table path */
  public Optional<String> computation() {
    return Optional.ofNullable(computation);
  }

  /** @return the internal state joined, or empty for a joiner by table path */
  public Optional<String> state() {
    return Optional.ofNullable(state);
  }

  /** @return the key mapping */
  public KeyCodec<K> keys() {
    return keys;
  }

  /** @return the codec of values in the cache (and in the table, with the default layout) */
  public Codec<S> codec() {
    return codec;
  }

  /** @return how values map to value columns */
  public CellLayout<S> layout() {
    return layout;
  }

  /** @return how long a loaded entry is served from the cache */
  public Duration ttl() {
    return ttl;
  }

  @Override
  public String toString() {
    return "JoinSpec[" + name + ", " + (tablePath != null ? tablePath : computation + "/" + state) + ", ttl " + ttl
        + "]";
  }

  /**
   * Builds a {@link JoinSpec}. Options may be set once ({@link IllegalStateException} otherwise). Not thread-safe.
   *
   * @param <K> the key type
   * @param <S> the state type
   */
  public static final class Builder<K, S> {
    private final String name;
    private final String tablePath;
    private final String computation;
    private final String state;
    private final KeyCodec<K> keys;
    private final Codec<S> codec;
    private CellLayout<S> layout;
    private Duration ttl;

    private Builder(String name, String tablePath, String computation, String state, KeyCodec<K> keys,
        Codec<S> codec) {
      this.name = StateSpec.Builder.checkName(name);
      this.tablePath = tablePath;
      this.computation = computation;
      this.state = state;
      this.keys = Objects.requireNonNull(keys, "keys");
      this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * How long loaded entries are served from the cache (default {@link #DEFAULT_TTL}).
     *
     * @param ttl how long after it was loaded an entry is still served from the cache; positive. The joiner may see
     *     the table as it was up to this long ago.
     * @return this builder
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder<K, S> ttl(Duration ttl) {
      if (this.ttl != null) {
        throw new IllegalStateException("ttl was already set to " + this.ttl);
      }
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("ttl must be positive, was " + ttl);
      }
      this.ttl = ttl;
      return this;
    }

    /**
     * How values map to the table's value columns (default one {@code value bytes} column, codec-encoded).
     *
     * @param layout reads a value from the table's value columns; for an internal state, the writer's layout
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

    /** @return the spec; the builder is unchanged */
    public JoinSpec<K, S> build() {
      return new JoinSpec<>(this);
    }
  }
}
