/**
 * Internals of the YTsaurus store: the HTTP API v4 client ({@code YtHttpClient}, over {@code YtTransport} and
 * {@code YtErrors}), JSON and row encoding ({@code YtJson}, {@code YtRowCodec}, {@code YtSchemas},
 * {@code SingleTableLayout}), Cypress administration ({@code YtCypress}) and the store's tables
 * ({@code YtTableCatalog}), leases ({@code LeaseManager}), the two transaction kinds, and the queue spouts
 * ({@code QueueReader}, {@code QueueSource}, the per-partition spouts, and {@code ConsumerAdvances}, the hook by which
 * an epoch commit carries consumer advances). Not API: may change at any time.
 */
package io.epochal.store.ytsaurus.internal;
