/**
 * Internals of the YTsaurus store: the HTTP API v4 client ({@code YtHttpClient}), JSON and row encoding
 * ({@code YtJson}, {@code YtRowCodec}, {@code YtSchemas}, {@code SingleTableLayout}), Cypress administration
 * ({@code YtCypress}), leases ({@code LeaseManager}) and the two transaction kinds. Not API: may change at any time.
 */
package io.epochal.store.ytsaurus.internal;
