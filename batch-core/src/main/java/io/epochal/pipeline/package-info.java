/**
 * The typed pipeline API. Entry point: {@link io.epochal.pipeline.Pipeline#newBuilder(String)}.
 *
 * <p>A pipeline has one spout; {@link io.epochal.pipeline.Stream} declares {@code map}, {@code flatMap},
 * {@code filter}, {@code groupBy}, {@code partitionPersist}, {@code stateQuery} and {@code lookup};
 * {@link io.epochal.pipeline.GroupedStream} declares {@code persistentAggregate} with a
 * {@link io.epochal.pipeline.CombinerAggregator} (pre-aggregated per batch and partition) or a
 * {@link io.epochal.pipeline.ReducerAggregator}. The builder computes the delivered
 * {@link io.epochal.pipeline.Guarantee} and refuses an {@code EXACTLY_ONCE} pipeline that cannot deliver it.
 */
package io.epochal.pipeline;
