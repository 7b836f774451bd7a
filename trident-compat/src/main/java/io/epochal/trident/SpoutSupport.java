package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;

/**
 * What every Trident spout adapter shares: the Epochal spout name, the Storm configuration handed to the spout (its
 * own component configuration plus the caller's), a synthetic {@link TopologyContext} of one task (the Epochal engine
 * emits on one thread), and the mapping of Epochal attempts (from 1) to Trident's {@link TransactionAttempt} ids
 * (from 0).
 */
final class SpoutSupport {
  final String name;
  final Fields fields;
  final Map<String, Object> conf;
  private TopologyContext context;

  SpoutSupport(String name, Fields fields, Map<String, Object> componentConf, Map<String, Object> conf) {
    this.name = Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("spout name must not be blank");
    }
    this.fields = Objects.requireNonNull(fields, () -> "spout " + name + " declares null output fields");
    Map<String, Object> all = new HashMap<>();
    if (componentConf != null) {
      all.putAll(componentConf);
    }
    all.putAll(Objects.requireNonNull(conf, "conf"));
    this.conf = all;
  }

  TopologyContext context() {
    if (context == null) {
      context = StormContexts.topologyContext(name, conf, fields, 0, 1);
    }
    return context;
  }

  /** The Trident attempt of Epochal attempt {@code attempt} (Epochal counts from 1, Trident from 0). */
  static TransactionAttempt attempt(long txid, int attempt) {
    return new TransactionAttempt(txid, attempt - 1);
  }

  /**
   * The codec of batch metadata: JSON, as Trident keeps it in ZooKeeper (integral numbers read back as {@code Long}).
   * Metadata that is not a JSON value is refused, since it could not survive a restart.
   */
  static Codec<Object> metadataCodec(String what) {
    return new Codec<>() {
      @Override
      public byte[] encode(Object value) {
        return TridentJson.write(Objects.requireNonNull(value, "value"), what);
      }

      @Override
      public Object decode(byte[] bytes) {
        Object v = TridentJson.parse(Objects.requireNonNull(bytes, "bytes"), what);
        if (v == null) {
          throw new CodecException(what + " is null");
        }
        return v;
      }

      @Override
      public String id() {
        return "trident-json:v1";
      }
    };
  }

  /** Metadata that may be null (Trident coordinators may return null), boxed for Epochal. */
  record Meta(Object value) {
  }

  static Codec<Meta> nullableMetadataCodec(String what) {
    return new Codec<>() {
      @Override
      public byte[] encode(Meta meta) {
        return TridentJson.write(Objects.requireNonNull(meta, "value").value(), what);
      }

      @Override
      public Meta decode(byte[] bytes) {
        return new Meta(TridentJson.parse(Objects.requireNonNull(bytes, "bytes"), what));
      }

      @Override
      public String id() {
        return "trident-json-nullable:v1";
      }
    };
  }

  static void requireSameSize(List<?> a, List<?> b, String what) {
    if (a.size() != b.size()) {
      throw new IllegalStateException(what + ": " + a.size() + " vs " + b.size());
    }
  }
}
