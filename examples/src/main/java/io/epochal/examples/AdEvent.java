package io.epochal.examples;

import io.epochal.errors.InvalidRecordException;
import io.epochal.spouts.kafka.KafkaRecord;
import java.util.List;
import java.util.Objects;

/**
 * One input record of the {@code ad-join} example: a show, a click or a factors record of one show id, or a watermark
 * tick (it only moves event time on: the generator writes one to every partition at the end of the input).
 *
 * <p>On Kafka (as {@code produce ad-join} writes them): key = show id ({@value #TICK_KEY} for a tick); value = the
 * event time in epoch milliseconds for a show and a click, {@code <time> <factors>} for a factors record and
 * {@code tick <time>} for a tick. The topic says the kind.
 *
 * @param kind what the record is
 * @param showId the show id (the join key)
 * @param time the event time, epoch milliseconds
 * @param factors the factors of a factors record, empty otherwise
 * @param source the watermark's source partition: {@code topic index * 65536 + Kafka partition}
 */
record AdEvent(Kind kind, String showId, long time, String factors, int source) {
  static final String TICK_KEY = "~tick";

  enum Kind { SHOW, CLICK, FACTORS, TICK }

  AdEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(showId, "showId");
    Objects.requireNonNull(factors, "factors");
  }

  /** The watermark's source partition of Kafka partition {@code partition} of the topic at {@code topicIndex}. */
  static int source(int topicIndex, int partition) {
    return topicIndex * 65_536 + partition;
  }

  /**
   * Parses a Kafka record of topic {@code topics.get(i)} (shows, clicks, factors).
   *
   * @throws InvalidRecordException naming the record's topic, partition and offset if it has no key or a bad value
   */
  static AdEvent parse(KafkaRecord<String, String> r, List<String> topics) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    int topic = topics.indexOf(r.topic());
    if (topic < 0) {
      throw new InvalidRecordException("record " + where + " comes from none of the topics " + topics);
    }
    String key = r.key().orElseThrow(() -> new InvalidRecordException("record " + where
        + " has no key: ad-join needs the show id as the key of every record"));
    String value = r.value().orElseThrow(() -> new InvalidRecordException("record " + where
        + " has no value: ad-join needs the event time as the value (see produce ad-join)"));
    int source = source(topic, r.partition());
    try {
      if (value.startsWith("tick ")) {
        return new AdEvent(Kind.TICK, key, Long.parseLong(value.substring(5)), "", source);
      }
      if (topic == 2) {
        int space = value.indexOf(' ');
        String time = space < 0 ? value : value.substring(0, space);
        return new AdEvent(Kind.FACTORS, key, Long.parseLong(time), space < 0 ? "" : value.substring(space + 1),
            source);
      }
      return new AdEvent(topic == 0 ? Kind.SHOW : Kind.CLICK, key, Long.parseLong(value), "", source);
    } catch (NumberFormatException e) {
      throw new InvalidRecordException("record " + where + " has value '" + value + "', whose event time is not a "
          + "whole number of milliseconds");
    }
  }

  /** The Kafka value of this record, as {@link #parse} reads it. */
  String kafkaValue() {
    return switch (kind) {
      case TICK -> "tick " + time;
      case FACTORS -> time + " " + factors;
      default -> Long.toString(time);
    };
  }

  /** The index of this record's topic (shows 0, clicks 1, factors 2), from its source partition. */
  int topicIndex() {
    return source / 65_536;
  }
}
