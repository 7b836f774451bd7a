/**
 * Kafka spouts for Epochal: partitioned {@linkplain KafkaSpouts#transactional transactional} and
 * {@linkplain KafkaSpouts#opaque opaque} spouts over one or more topics, one spout partition per Kafka partition.
 *
 * <p>Offsets live in the batch metadata ({@link io.epochal.spout.PartitionedMetadata} of {@link OffsetRange}s), so
 * they are committed <em>in the epoch</em>: the engine records a transactional batch's ranges as pending before it
 * emits them and commits every batch's ranges with the state in the checkpoint. The consumer group is never read;
 * mirroring committed offsets to one is an option for lag tools.
 *
 * <p>Configure with {@link KafkaSpoutConfig}; records arrive as {@link KafkaRecord} (or {@link KafkaMessage} with the
 * dead-letter option); failures are {@link KafkaSpoutException}s.
 */
package io.epochal.spouts.kafka;
