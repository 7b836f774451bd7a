/**
 * Implementation of the Flow-style API: the computation's state factory, its per-partition state (epochs, bulk loads,
 * flush into the epoch buffer), state clients and accessors, table ownership. Not an API: types here are public only
 * so that {@code io.epochal.flow} can reach them; declare computations through {@link io.epochal.flow.Flow}.
 */
package io.epochal.flow.internal;
