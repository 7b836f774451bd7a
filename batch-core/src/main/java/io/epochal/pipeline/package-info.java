/**
 * The typed pipeline API. Entry point: {@link io.epochal.pipeline.Pipeline#newBuilder(String)}.
 *
 * <p>A pipeline has one spout; {@link io.epochal.pipeline.Stream} declares {@code map}, {@code flatMap},
 * {@code filter}, {@code groupBy}, {@code partitionPersist}, {@code stateQuery} and {@code lookup};
 * {@link io.epochal.pipeline.GroupedStream} declares {@code persistentAggregate} with a
 * {@link io.epochal.pipeline.CombinerAggregator} (pre-aggregated per batch and partition) or a
 * {@link io.epochal.pipeline.ReducerAggregator}. The builder computes the delivered
 * {@link io.epochal.pipeline.Guarantee} and refuses an {@code EXACTLY_ONCE} pipeline that cannot deliver it; the
 * guarantee is also the delivery mode the engine runs ({@code AT_LEAST_ONCE}, {@code AT_MOST_ONCE}: see
 * {@link io.epochal.pipeline.Guarantee}). {@link io.epochal.pipeline.Dedup#byId} drops records a producer delivered
 * twice, by message id within a window of batches.
 */
package io.epochal.pipeline;
