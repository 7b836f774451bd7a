package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The usual compositions of a state, in one place: a store, the layers over it (a cache, metering, fault injection),
 * then the txid rule that makes it a state factory:
 *
 * <pre>{@code
 * StateFactory<MapState<String, Long>> counts = States.over(store).cached(10_000).as(TransactionalMap::factory);
 * }</pre>
 *
 * <p>Every layer passes the whole lifecycle on ({@link IBackingMap#begin}, {@code end}, {@code abort}), so
 * a cache drops what a failed attempt put in it. Immutable steps; thread-safe.
 *
 * @since 0.3.0
 */
@Stable
public final class States {
  private States() {
  }

  /**
   * Starts a composition over {@code store}.
   *
   * @param store the store at the bottom of the composition, not null
   * @param <K> the key type
   * @param <C> the cell type
   * @return a composition with no layer yet
   */
  public static <K, C> Composition<K, C> over(IBackingMap<K, C> store) {
    return new Composition<>(Objects.requireNonNull(store, "store"));
  }

  /**
   * A store with layers; {@link #as} makes the state factory.
   *
   * @param <K> the key type
   * @param <C> the cell type
   */
  public static final class Composition<K, C> {
    private final IBackingMap<K, C> map;

    private Composition(IBackingMap<K, C> map) {
      this.map = map;
    }

    /**
     * Adds a {@link CachedMap} of {@code maximumSize} cells over what was composed so far.
     *
     * @param maximumSize the number of cells the cache keeps, at least 1
     * @return a new composition with the cache on top; this one is unchanged
     * @throws IllegalArgumentException if {@code maximumSize < 1}
     */
    public Composition<K, C> cached(long maximumSize) {
      return new Composition<>(new CachedMap<>(map, maximumSize));
    }

    /**
     * Adds a layer over what was composed so far; it must forward the lifecycle (extend {@link ForwardingBackingMap}).
     *
     * @param layer makes the layer from the map composed so far
     * @return a new composition with the layer on top; this one is unchanged
     * @throws NullPointerException if the layer returns null
     */
    public Composition<K, C> layer(UnaryOperator<IBackingMap<K, C>> layer) {
      return new Composition<>(Objects.requireNonNull(layer.apply(map), "the layer returned null"));
    }

    /** @return the composed backing map */
    public IBackingMap<K, C> map() {
      return map;
    }

    /**
     * Applies the txid rule, e.g. {@code TransactionalMap::factory}, {@code OpaqueMap::factory} or
     * {@code NonTransactionalMap::factory}.
     *
     * @param rule makes the state factory from the composed map
     * @param <S> the state type
     * @return the factory {@code rule} returned
     * @throws NullPointerException if the rule returns null
     */
    public <S extends State> StateFactory<S> as(Function<? super IBackingMap<K, C>, ? extends StateFactory<S>> rule) {
      return Objects.requireNonNull(rule.apply(map), "the rule returned null");
    }
  }
}
