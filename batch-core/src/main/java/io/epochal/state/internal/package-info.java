/**
 * Implementation helpers shared by the map-state modules ({@code state-transactional}, {@code state-opaque}). Public
 * only so that those modules can reach them: not an API, no compatibility promise, never named by an API signature.
 *
 * <p>Entry points: {@link io.epochal.state.internal.TxidMapCore}, everything a txid-carrying map state does apart
 * from its txid rule, and {@link io.epochal.state.internal.AttemptCache}, the cells a map state wrote in the current
 * attempt of a batch.
 */
package io.epochal.state.internal;
