package io.epochal.flow;

import io.epochal.api.Evolving;
import java.util.Objects;
import java.util.Optional;

/**
 * A fired timer, as {@link KeyedProcessor#onTimer} gets it: the name of its {@link TimerSpec}, its domain, its
 * trigger time and its payload (decoded with the spec's payload codec; read it typed with
 * {@link TimerClient#payloadOf}). Immutable.
 *
 * @param spec the name of the timer's {@link TimerSpec}
 * @param domain the spec's time domain
 * @param trigger the trigger time, in milliseconds
 * @param payload the payload given to {@link TimerClient#add(Object, long, Object)}, empty if none
 * @since 0.5.0
 */
@Evolving
public record Timer(String spec, TimeDomain domain, long trigger, Optional<Object> payload) {
  /**
   * Creates a fired timer; the engine makes them, a processor only reads them.
   *
   * @param spec the name of the timer's {@link TimerSpec}
   * @param domain the spec's time domain
   * @param trigger the trigger time, in milliseconds of {@code domain}'s time
   * @param payload the decoded payload, empty for a timer added without one
   * @throws NullPointerException if an argument is null
   */
  public Timer {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(domain, "domain");
    Objects.requireNonNull(payload, "payload");
  }
}
