/**
 * The meters behind {@link io.epochal.metrics.EpochalMetrics}: the pipeline listener, the metered table store and its
 * transactions, the store and cache meters. Not API: may change in any release.
 */
package io.epochal.metrics.internal;
