/**
 * Replay testing for pipelines, states and stores: inject failures at every point of the commit protocol, restart
 * whole pipelines, and compare the final state with a failure-free reference.
 *
 * <p>Entry points: {@link io.epochal.testkit.FaultInjector} (wraps a backing map and a checkpoint store so that
 * scheduled {@link io.epochal.testkit.Fault}s fire deterministically), {@link io.epochal.testkit.ReplayHarness}
 * (runs a pipeline to the end through simulated crashes and restarts) and {@link io.epochal.testkit.ReplayArbitraries}
 * (jqwik generators of inputs and failure schedules).
 */
package io.epochal.testkit;
