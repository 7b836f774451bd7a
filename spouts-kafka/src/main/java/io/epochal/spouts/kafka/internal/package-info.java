/** Internals of the Kafka spouts: the partition reader over one consumer, cuts, decoding. Not an API. */
package io.epochal.spouts.kafka.internal;
