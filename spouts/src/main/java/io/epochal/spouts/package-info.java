/**
 * Concrete spouts.
 *
 * <p>Entry points: {@link io.epochal.spouts.ListSpout} (transactional, in-memory, growing list),
 * {@link io.epochal.spouts.GeneratedSpout} (transactional, record {@code i} generated from {@code i}; the word count
 * input), {@link io.epochal.spouts.ReCuttingOpaqueSpout} (opaque, cuts every replay differently),
 * {@link io.epochal.spouts.FileSpout} (partitioned transactional over appended newline-delimited files, with byte
 * ranges and CRC-32 checks) and {@link io.epochal.spouts.FaultInjectingSpout} (wraps any spout kind and injects
 * faults per a {@link io.epochal.spouts.FaultPlan}). Their metadata types are {@link io.epochal.spouts.Range},
 * {@link io.epochal.spouts.FileRange} and {@code Long} positions. {@link io.epochal.spouts.ForwardingSpouts} are the
 * wrappers that change only the emission, which fault injectors build on.
 *
 * <p>No class here keeps static mutable state; each instance is independent.
 */
package io.epochal.spouts;
