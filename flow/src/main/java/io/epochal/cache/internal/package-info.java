/**
 * Implementation of the {@link io.epochal.cache.StateCache}: two weight-bounded Caffeine caches with LZ4 demotion.
 * Not an API: types here are public only so that {@code io.epochal.cache} can reach them; build caches through
 * {@link io.epochal.cache.StateCache#builder()}.
 */
package io.epochal.cache.internal;
