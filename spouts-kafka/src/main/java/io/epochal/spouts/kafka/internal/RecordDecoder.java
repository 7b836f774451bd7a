package io.epochal.spouts.kafka.internal;

import io.epochal.spouts.kafka.KafkaDeadLetter;
import io.epochal.spouts.kafka.KafkaDeserializationException;
import io.epochal.spouts.kafka.KafkaDeserializationException.Part;
import io.epochal.spouts.kafka.KafkaHeader;
import io.epochal.spouts.kafka.KafkaMessage;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns raw records into what a spout emits, with the spout's own (configured) deserializers. Strict: a
 * deserialization failure throws {@link KafkaDeserializationException}; dead letters: it becomes a
 * {@link KafkaDeadLetter}. Not thread-safe (deserializers need not be).
 *
 * @param <T> what the spout emits
 */
public abstract class RecordDecoder<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordDecoder.class);

  final String spout;
  private final Deserializer<?> keys;
  private final Deserializer<?> values;

  private RecordDecoder(KafkaSpoutConfig<?, ?> config) {
    this.spout = config.name();
    Map<String, Object> props = KafkaLog.consumerProperties(config);
    this.keys = config.newKeyDeserializer();
    this.values = config.newValueDeserializer();
    keys.configure(props, true);
    values.configure(props, false);
  }

  /**
   * Decodes records as {@link KafkaRecord}s, throwing on a deserialization failure.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param config the spout's configuration, whose deserializers are made and configured here
   * @return a decoder that throws {@link io.epochal.spouts.kafka.KafkaDeserializationException} for a record its
   *     deserializers reject
   */
  public static <K, V> RecordDecoder<KafkaRecord<K, V>> strict(KafkaSpoutConfig<K, V> config) {
    return new RecordDecoder<>(config) {
      @Override
      KafkaRecord<K, V> decode(ConsumerRecord<byte[], byte[]> raw, long txid) {
        List<KafkaHeader> headers = headers(raw.headers());
        return record(raw, headers, deserialize(raw, true, txid), deserialize(raw, false, txid));
      }
    };
  }

  /**
   * Decodes records as {@link KafkaMessage}s: a deserialization failure becomes a dead letter.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param config the spout's configuration, whose deserializers are made and configured here
   * @return a decoder that emits a {@link io.epochal.spouts.kafka.KafkaDeadLetter} for a record its deserializers
   *     reject
   */
  public static <K, V> RecordDecoder<KafkaMessage<K, V>> deadLetters(KafkaSpoutConfig<K, V> config) {
    return new RecordDecoder<>(config) {
      @Override
      KafkaMessage<K, V> decode(ConsumerRecord<byte[], byte[]> raw, long txid) {
        List<KafkaHeader> headers = headers(raw.headers());
        Object key;
        Object value;
        try {
          key = deserialize(raw, true, txid);
          value = deserialize(raw, false, txid);
        } catch (KafkaDeserializationException e) {
          Throwable cause = e.getCause();
          return new KafkaDeadLetter<>(raw.topic(), raw.partition(), raw.offset(), raw.timestamp(), raw.key(),
              raw.value(), headers, e.part(), cause.getClass().getName() + ": " + cause.getMessage());
        }
        return record(raw, headers, key, value);
      }
    };
  }

  abstract T decode(ConsumerRecord<byte[], byte[]> raw, long txid);

  /** Decodes all of {@code raw} (so that nothing is emitted when one fails). */
  List<T> decodeAll(List<ConsumerRecord<byte[], byte[]>> raw, long txid) {
    List<T> out = new ArrayList<>(raw.size());
    for (ConsumerRecord<byte[], byte[]> r : raw) {
      out.add(decode(r, txid));
    }
    return out;
  }

  final Object deserialize(ConsumerRecord<byte[], byte[]> raw, boolean key, long txid) {
    byte[] bytes = key ? raw.key() : raw.value();
    try {
      return (key ? keys : values).deserialize(raw.topic(), raw.headers(), bytes);
    } catch (RuntimeException e) {
      throw new KafkaDeserializationException(spout, raw.topic(), raw.partition(), raw.offset(), txid,
          key ? Part.KEY : Part.VALUE, e);
    }
  }

  @SuppressWarnings("unchecked")
  static <K, V> KafkaRecord<K, V> record(ConsumerRecord<byte[], byte[]> raw, List<KafkaHeader> headers, Object key,
      Object value) {
    return new KafkaRecord<>(raw.topic(), raw.partition(), raw.offset(), raw.timestamp(), raw.timestampType(),
        Optional.ofNullable((K) key), Optional.ofNullable((V) value), headers);
  }

  static List<KafkaHeader> headers(Headers headers) {
    Iterator<Header> it = headers.iterator();
    if (!it.hasNext()) {
      return List.of(); // the common case: no list per record
    }
    List<KafkaHeader> out = new ArrayList<>();
    while (it.hasNext()) {
      Header h = it.next();
      out.add(new KafkaHeader(h.key(), h.value()));
    }
    return out;
  }

  @Override
  public void close() {
    for (Deserializer<?> d : List.of(keys, values)) {
      try {
        d.close();
      } catch (RuntimeException e) {
        LOG.warn("Kafka spout '{}': closing a deserializer failed", spout, e);
      }
    }
  }
}
