/**
 * Table store on YTsaurus sorted dynamic tables over the HTTP proxy API v4. Entry point:
 * {@link io.epochal.store.ytsaurus.YtTableStore#builder(String)}; modes in {@link io.epochal.store.ytsaurus.YtMode};
 * typed failures {@link io.epochal.store.ytsaurus.YtException} and its subtypes with the parsed
 * {@link io.epochal.store.ytsaurus.YtError}. Row conflicts and lost leases surface as the core
 * {@link io.epochal.errors.CommitConflictException} and {@link io.epochal.errors.LeaseLostException}.
 */
package io.epochal.store.ytsaurus;
