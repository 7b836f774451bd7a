package io.epochal.flow;

import io.epochal.api.Evolving;
import java.util.Optional;

/**
 * The timers of one {@link TimerSpec} in a partition, declared in {@link KeyedProcessor#init} with
 * {@link ProcessorContext#timers}. Use it from {@link KeyedProcessor#process} and {@link KeyedProcessor#onTimer}.
 *
 * <p><b>Identity and deduplication.</b> A timer is identified by (key, trigger) within its spec (and so its domain):
 * adding an equal timer again replaces its payload and does not add a second one.
 *
 * <p><b>Epochs.</b> Adds and deletes are staged in the current epoch and commit with it (with the states and the
 * checkpoint); a failed attempt's adds and deletes are discarded, as are the deletions of timers it fired. A timer
 * added by {@code process} whose trigger is already due fires in the same batch, after the records; one added by
 * {@code onTimer} fires at the earliest in the next batch.
 *
 * <p>Used by the thread processing the partition; not thread-safe.
 *
 * @param <K> the key type
 * @param <P> the payload type
 * @since 0.5.0
 */
@Evolving
public interface TimerClient<K, P> {

  /** @return the spec's name */
  String name();

  /** @return the spec's time domain */
  TimeDomain domain();

  /**
   * Adds a timer without payload (or removes the payload of an equal pending timer).
   *
   * @param key the key the timer fires for ({@link KeyedProcessor#onTimer} gets it)
   * @param trigger when the timer is due, in milliseconds of the spec's domain (the {@link TimerClock} or the
   *     watermark); at least 0
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code trigger} is negative
   * @throws IllegalStateException outside an epoch (in {@code init})
   */
  void add(K key, long trigger);

  /**
   * Adds a timer with a payload, or replaces the payload of an equal pending timer.
   *
   * @param key the key the timer fires for ({@link KeyedProcessor#onTimer} gets it)
   * @param trigger when the timer is due, in milliseconds of the spec's domain (the {@link TimerClock} or the
   *     watermark); at least 0
   * @param payload the value {@link #payloadOf} returns when the timer fires, encoded with the spec's payload codec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code trigger} is negative
   * @throws IllegalStateException outside an epoch, or if the spec has no payload codec
   */
  void add(K key, long trigger, P payload);

  /**
   * Deletes the pending timer (key, trigger), if there is one.
   *
   * @param key the key of the timer to delete
   * @param trigger the trigger time of the timer to delete, in milliseconds of the spec's domain
   * @return whether a timer was pending
   * @throws IllegalStateException outside an epoch
   */
  boolean delete(K key, long trigger);

  /**
   * The payload of a fired timer of this spec, typed.
   *
   * @param timer a timer of this spec, as {@link KeyedProcessor#onTimer} got it
   * @return the timer's payload, empty if it was added without one
   * @throws IllegalArgumentException if {@code timer} belongs to another spec
   */
  @SuppressWarnings("unchecked")
  default Optional<P> payloadOf(Timer timer) {
    if (!timer.spec().equals(name())) {
      throw new IllegalArgumentException("timer " + timer + " belongs to spec '" + timer.spec() + "', not '" + name()
          + "'");
    }
    return (Optional<P>) (Optional<?>) timer.payload();
  }
}
