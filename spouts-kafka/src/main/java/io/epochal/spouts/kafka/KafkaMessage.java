package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.util.Optional;

/**
 * What the dead-letter variants of the Kafka spouts emit ({@link KafkaSpouts#transactionalWithDeadLetters},
 * {@link KafkaSpouts#opaqueWithDeadLetters}): either a {@link KafkaRecord} whose key and value were deserialized, or a
 * {@link KafkaDeadLetter} for a record whose key or value could not be. Both are part of the batch, so a dead letter
 * written to a state (e.g. a {@code persistentAggregate} keyed by its coordinates) commits in the same epoch as the
 * offsets that passed it: it is never skipped silently and never recorded twice.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.1.0
 */
@Evolving
public sealed interface KafkaMessage<K, V> permits KafkaRecord, KafkaDeadLetter {

  /**
   * The topic the record was read from.
   *
   * @return the topic
   */
  String topic();

  /**
   * The partition the record was read from.
   *
   * @return the partition, {@code >= 0}
   */
  int partition();

  /**
   * The record's offset in its partition.
   *
   * @return the offset, {@code >= 0}
   */
  long offset();

  /**
   * This message if its key and value were deserialized.
   *
   * @return this message as a record, empty for a dead letter
   */
  default Optional<KafkaRecord<K, V>> record() {
    return this instanceof KafkaRecord<K, V> r ? Optional.of(r) : Optional.empty();
  }

  /**
   * This message if its key or value could not be deserialized.
   *
   * @return this message as a dead letter, empty for a record
   */
  default Optional<KafkaDeadLetter<K, V>> deadLetter() {
    return this instanceof KafkaDeadLetter<K, V> d ? Optional.of(d) : Optional.empty();
  }
}
