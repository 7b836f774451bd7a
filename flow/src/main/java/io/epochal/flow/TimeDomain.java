package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * The clock a timer's trigger time is read on (YTsaurus Flow's timer time types).
 *
 * @since 0.5.0
 */
@Evolving
public enum TimeDomain {
  /**
   * Event time: the timer fires in the first batch whose computation watermark is at or past its trigger time (see
   * {@link WatermarkStrategy}); a computation without a watermark strategy never fires event-time timers.
   */
  EVENT_TIME,
  /** Processing time: the timer fires in the first batch whose {@link TimerClock} reading is at or past its trigger. */
  PROCESSING_TIME
}
