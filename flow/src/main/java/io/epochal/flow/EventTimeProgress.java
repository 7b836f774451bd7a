package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * The committed event-time progress of a Flow computation with a {@link WatermarkStrategy}, as read by
 * {@link FlowStates#eventTimeProgress}: its watermark and the late records it has seen, both as of its last committed
 * batch. Immutable.
 *
 * @param watermark the watermark in milliseconds, {@link Long#MIN_VALUE} before any record
 * @param lateRecords how many late records arrived (under every late policy: processed, dropped or handed to
 *     {@link KeyedProcessor#processLate}), counted exactly once each, replays included
 * @since 0.5.0
 */
@Evolving
public record EventTimeProgress(long watermark, long lateRecords) {
}
