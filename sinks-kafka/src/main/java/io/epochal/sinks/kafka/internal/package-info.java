/** Internals of the Kafka sink: the transactional publisher and the outbox codec. Not an API. */
package io.epochal.sinks.kafka.internal;
