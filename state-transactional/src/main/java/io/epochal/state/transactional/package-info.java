/**
 * Transactional map state: per-key {@code (value, txid)} cells that skip a batch already applied, Trident's
 * {@code TransactionalMap} with typed keys and a detected "state ahead of the coordinator" error.
 *
 * <p>Entry points: {@link io.epochal.state.transactional.TransactionalMap#over} (one map over a store),
 * {@link io.epochal.state.transactional.TransactionalMap#factory} (one map per partition) and the cell type with its
 * pure update rule, {@link io.epochal.state.transactional.TransactionalValue}. Exactly-once with a transactional
 * spout; an opaque spout needs {@code io.epochal.state.opaque.OpaqueMap}.
 */
package io.epochal.state.transactional;
