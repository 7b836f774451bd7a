/**
 * Concrete spouts.
 *
 * <p>Entry points: {@link io.epochal.spouts.ListSpout} (transactional, in-memory, growing list),
 * {@link io.epochal.spouts.GeneratedSpout} (transactional, record {@code i} generated from {@code i}; the word count
 * input), {@link io.epochal.spouts.ReCuttingOpaqueSpout} (opaque, cuts every replay differently) and
 * {@link io.epochal.spouts.FileSpout} (partitioned transactional over appended newline-delimited files, with byte
 * ranges and CRC-32 checks). Their metadata types are {@link io.epochal.spouts.Range},
 * {@link io.epochal.spouts.FileRange} and {@code Long} positions. {@link io.epochal.spouts.ForwardingSpouts} are the
 * wrappers that change only the emission, which the testkit's {@code FaultInjector} builds on (fault injection lives
 * in the testkit only).
 *
 * <p>No class here keeps static mutable state; each instance is independent.
 */
package io.epochal.spouts;
