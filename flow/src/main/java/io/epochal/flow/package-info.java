/**
 * The Flow-style API: keyed processors with named state clients, modelled on YTsaurus Flow's stateful processing.
 * Entry point: {@link io.epochal.flow.Flow#process}, with {@link io.epochal.flow.FlowStates} for where states live.
 *
 * <p>A {@link io.epochal.flow.KeyedProcessor} declares in {@code init} read-write states
 * ({@link io.epochal.flow.StateClient}, from a {@link io.epochal.flow.StateSpec}: internal tables named by the
 * library, or external user tables, each owned by exactly one writer) and joiners
 * ({@link io.epochal.flow.JoinedStateClient}, from a {@link io.epochal.flow.JoinSpec}: read-only, TTL-cached, no
 * claim). Per key and batch it asks clients for accessors ({@link io.epochal.flow.StateAccessor},
 * {@link io.epochal.flow.JoinedStateAccessor}), valid only in their epoch.
 *
 * <p>Time: timers ({@link io.epochal.flow.TimerSpec}), event-time watermarks
 * ({@link io.epochal.flow.WatermarkStrategy}), state TTL ({@link io.epochal.flow.StateSpec.Builder#ttl},
 * {@link io.epochal.flow.StateTtl}) and inputs read with an event-time delay ({@link io.epochal.flow.DelaySpec}),
 * all kept in the store and committed with the epochs.
 */
package io.epochal.flow;
