/**
 * Replay testing for users' pipelines, states and stores: inject failures at every point of the commit protocol,
 * restart whole processes (reopening stores from their durable part), take leases over from zombie workers, re-cut
 * opaque batches, compare the final state with a model of the pipeline and with the failure-free run, and shrink a
 * failing schedule to a readable timeline of what was read, written and held.
 *
 * <p>Entry points:
 * <ul>
 *   <li>{@link io.epochal.testkit.ReplayCheck}: property-based replay checks of a backing map, map state, table store
 *       or whole pipeline under a {@link io.epochal.testkit.ReplaySchedule}, generated (and shrunk) by
 *       {@link io.epochal.testkit.ReplayArbitraries}; a failure is a {@link io.epochal.testkit.ReplayCheckFailure}
 *       whose message is the numbered timeline and the differing keys.</li>
 *   <li>{@link io.epochal.testkit.PipelineTestDriver}: example-based tests, one txid at a time (like Kafka's
 *       {@code TopologyTestDriver}).</li>
 *   <li>{@link io.epochal.testkit.TableStoreContractTest} / {@link io.epochal.testkit.TableStoreContractKit}: the
 *       table-store contract ({@link io.epochal.testkit.store.TableStoreContract}, in package
 *       {@code io.epochal.testkit.store}) and replay checks for a user's own {@code TableStore}; the forwarding bases
 *       {@link io.epochal.testkit.store.ForwardingTableStore} and {@link io.epochal.testkit.store.ForwardingStoreTransaction}
 *       for wrappers.</li>
 *   <li>The machinery underneath: {@link io.epochal.testkit.FaultInjector} (wrappers that fire scheduled
 *       {@link io.epochal.testkit.Fault}s at {@link io.epochal.testkit.FaultPoint}s and record a
 *       {@link io.epochal.testkit.ReplayTimeline}) and {@link io.epochal.testkit.ReplayHarness} (runs a pipeline to the
 *       end through simulated crashes and restarts).</li>
 * </ul>
 */
package io.epochal.testkit;
