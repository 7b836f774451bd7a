/**
 * The Trident-shaped state SPI: small interfaces composed by wrappers.
 *
 * <p>Entry points: {@link io.epochal.state.State} (driven per batch as {@code begin(epoch) → reads and updates →
 * end()}, strictly in txid order; the epoch carries the txid, and only the engine's commit of the epoch is
 * durable), {@link io.epochal.state.StateFactory} (one state per partition),
 * {@link io.epochal.state.MapState} (keyed state with bulk reads and updates), {@link io.epochal.state.IBackingMap}
 * (the one integration point for any key-value store) and the layers {@link io.epochal.state.NonTransactionalMap},
 * {@link io.epochal.state.CachedMap}, {@link io.epochal.state.SnapshottableMap} and
 * {@link io.epochal.state.InMemoryBackingMap}. The txid rules live in the {@code state-transactional} and
 * {@code state-opaque} modules ({@code TransactionalMap}, {@code OpaqueMap}).
 *
 * <p>Keys are typed ({@code K}) and bulk calls take collections and return maps: there are no positional
 * {@code List<Object>} keys and no parallel lists.
 */
package io.epochal.state;
