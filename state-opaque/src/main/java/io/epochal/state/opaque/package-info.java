/**
 * Opaque map state: per-key {@code (curr, prev, txid)} cells that recompute a replayed batch from the value before
 * it, Trident's {@code OpaqueMap} with typed keys and a typed "state ahead of the coordinator" error.
 *
 * <p>Entry points: {@link io.epochal.state.opaque.OpaqueMap#over} (one map over a store),
 * {@link io.epochal.state.opaque.OpaqueMap#factory} (one map per partition) and the cell type with its pure update
 * rule, {@link io.epochal.state.opaque.OpaqueValue}. Exactly-once with opaque and transactional spouts.
 */
package io.epochal.state.opaque;
