/**
 * Micrometer meters for Epochal pipelines, table stores and the Flow state cache. Entry point:
 * {@link io.epochal.metrics.EpochalMetrics}. Nothing is measured unless a {@code MeterRegistry} is given to one of its
 * methods.
 */
package io.epochal.metrics;
