package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.trident.topology.TridentTopologyBuilder;
import org.apache.storm.tuple.Fields;

/**
 * What every Trident spout adapter shares: the Epochal spout name, the Storm configuration handed to the spout (its
 * own component configuration plus the caller's), synthetic {@link TopologyContext}s of the coordinator and of the
 * emitter as Storm names them (one task each: the Epochal engine emits on one thread), and the mapping of Epochal
 * attempts (from 1) to Trident's {@link TransactionAttempt} ids (from 0).
 */
final class SpoutSupport {
  final String name;
  final Fields fields;
  final Map<String, Object> conf;
  /** A spout adapter of this package: its records are tuples of the Trident spout's output fields. */
  interface Adapter {
    Fields outputFields();
  }

  private TopologyContext coordinatorContext;
  private TopologyContext emitterContext;

  /** The support of a spout made by {@code EpochalTrident.spout}: no configuration beyond the spout's own. */
  static SpoutSupport of(String name, Fields fields, Map<String, Object> componentConf) {
    return new SpoutSupport(Objects.requireNonNull(name, "name"), fields, componentConf, Map.of());
  }

  /** {@link #of(String, Fields, Map)} of a Trident {@code IBatchSpout}. */
  static SpoutSupport of(String name, org.apache.storm.trident.spout.IBatchSpout spout) {
    return of(name, spout.getOutputFields(), spout.getComponentConfiguration());
  }

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

  /**
   * The context of the spout's coordinator, as Storm builds it: task 0 of component {@code $spoutcoord-<name>}
   * ({@code TridentTopologyBuilder.spoutCoordinator}), in a topology whose component {@code <name>} is the emitter,
   * with one task. Storm's {@code FeederBatchSpout} counts the emitter's tasks from it
   * ({@code getComponentTasks(spoutIdFromCoordinatorId(getThisComponentId()))}).
   */
  TopologyContext coordinatorContext() {
    if (coordinatorContext == null) {
      coordinatorContext = context(coordinatorId());
    }
    return coordinatorContext;
  }

  /** The context of the spout's emitter (and of an {@code IBatchSpout}): task 0 of component {@code <name>}. */
  TopologyContext emitterContext() {
    if (emitterContext == null) {
      emitterContext = context(name);
    }
    return emitterContext;
  }

  /** Storm's component id of the spout's coordinator: {@code $spoutcoord-<name>}. */
  String coordinatorId() {
    return TridentTopologyBuilder.spoutCoordinator(name);
  }

  private TopologyContext context(String component) {
    Map<String, Integer> components = new LinkedHashMap<>();
    components.put(name, 1);
    components.put(coordinatorId(), 1);
    Map<String, Fields> outputs = new HashMap<>();
    outputs.put(name, fields);
    outputs.put(coordinatorId(), new Fields("tx", "metadata"));
    return StormContexts.topologyContext(components, outputs, component, 0, conf);
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

  /**
   * The codec of a generic Trident spout's batch metadata, which must read back exactly as written (a replay after a
   * restart emits from it): JSON, as Trident keeps it in ZooKeeper, when the JSON reads back equal to the metadata;
   * otherwise Java serialization (for example the {@code Map<Integer, List<List<Object>>>} of Storm's
   * {@code FeederBatchSpout}, whose {@code Integer} keys JSON would turn into strings, so that a replay emitted
   * nothing). Both are told apart on reading by Java serialization's stream header, which no JSON text starts with.
   * Metadata that is neither is refused with a {@link CodecException}.
   *
   * @param loader resolves the classes of Java-serialized metadata (the spout's class loader)
   */
  static Codec<Meta> nullableMetadataCodec(String what, ClassLoader loader) {
    return new Codec<>() {
      @Override
      public byte[] encode(Meta meta) {
        Object value = Objects.requireNonNull(meta, "value").value();
        if (TridentJson.isJson(value)) {
          byte[] json = TridentJson.write(value, what);
          if (Objects.equals(TridentJson.parse(json, what), value)) {
            return json;
          }
        }
        if (value instanceof Serializable serializable) {
          return javaSerialized(serializable);
        }
        throw new CodecException(what + " (" + value.getClass().getName() + ": " + value + ") can be kept neither as "
            + "JSON that reads back equal nor by Java serialization; a replay after a restart could not emit the "
            + "same batch. Make the coordinator's metadata JSON values or Serializable");
      }

      @Override
      public Meta decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xac && (bytes[1] & 0xff) == 0xed) {
          return new Meta(javaDeserialized(bytes));
        }
        return new Meta(TridentJson.parse(bytes, what));
      }

      @Override
      public String id() {
        return "trident-json-nullable:v1";
      }

      private byte[] javaSerialized(Serializable value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream objects = new ObjectOutputStream(out)) {
          objects.writeObject(value);
        } catch (IOException e) {
          throw new CodecException("cannot write " + what + " by Java serialization: " + e, e);
        }
        return out.toByteArray();
      }

      private Object javaDeserialized(byte[] bytes) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
          @Override
          protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            try {
              return Class.forName(desc.getName(), false, loader);
            } catch (ClassNotFoundException e) {
              return super.resolveClass(desc);
            }
          }
        }) {
          return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
          throw new CodecException("cannot read " + what + " (" + bytes.length + " bytes, Java serialization): " + e,
              e);
        }
      }
    };
  }
}
