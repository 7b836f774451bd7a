/**
 * Table store on YTsaurus sorted dynamic tables over the HTTP proxy API v4. Entry point:
 * {@link io.epochal.store.ytsaurus.YtTableStore#builder(String)}; modes in {@link io.epochal.store.ytsaurus.YtMode};
 * typed failures {@link io.epochal.store.ytsaurus.YtException} and its subtypes with the parsed
 * {@link io.epochal.store.ytsaurus.YtError}. Row conflicts and lost leases surface as the core
 * {@link io.epochal.errors.CommitConflictException} and {@link io.epochal.errors.LeaseLostException}.
 *
 * <p>Queue spouts over YTsaurus queues (ordered dynamic tables): {@link io.epochal.store.ytsaurus.YtQueueSpouts} with a
 * {@link io.epochal.store.ytsaurus.YtQueueSpoutConfig}, emitting {@link io.epochal.store.ytsaurus.YtQueueRow}s or what a
 * {@link io.epochal.store.ytsaurus.YtRowDecoder} makes of them, with {@link io.epochal.store.ytsaurus.YtQueueRange}
 * metadata; failures are {@link io.epochal.store.ytsaurus.YtQueueException} and its subtypes. On a
 * {@link io.epochal.store.ytsaurus.YtTableStore} the epoch commit can advance the queue consumer atomically with the
 * states.
 */
package io.epochal.store.ytsaurus;
