/**
 * An exactly-once Kafka sink: {@link io.epochal.sinks.kafka.KafkaSinks#exactlyOnce} with a
 * {@link io.epochal.sinks.kafka.KafkaSinkConfig}; typed failures under
 * {@link io.epochal.sinks.kafka.KafkaSinkException}.
 */
package io.epochal.sinks.kafka;
