/**
 * The spout SPI, in Trident's shape: a coordinator part that fixes a batch's metadata per txid and an emitter part
 * that emits the batch for that metadata.
 *
 * <p>Entry points: {@link io.epochal.spout.TransactionalSpout} (the same records for a txid on every replay),
 * {@link io.epochal.spout.OpaqueSpout} (continues from the last committed position; a replay may re-cut the batch),
 * {@link io.epochal.spout.NonTransactionalSpout} (no replay guarantee), their partitioned variants
 * {@link io.epochal.spout.PartitionedTransactionalSpout} and {@link io.epochal.spout.PartitionedOpaqueSpout}, and the
 * adapters in {@link io.epochal.spout.Spouts}, whose batch metadata is a {@link io.epochal.spout.PartitionedMetadata}
 * (every partition's latest metadata, carried forward, and the set of partitions new in the batch). The adapters are
 * package-private.
 *
 * <p>Lag: a spout that implements {@link io.epochal.spout.LagReporting} reports, per source partition, its end and
 * committed positions ({@link io.epochal.spout.PartitionLag}) to any thread; {@link io.epochal.spout.CommittedMetadata}
 * tracks a partitioned spout's last committed metadata for it.
 */
package io.epochal.spout;
