package io.epochal.tools.internal;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spouts.Range;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Resolves a codec from the id it records ({@link Codec#id()}), exactly: {@code long-be:v1}, {@code utf8:v1},
 * {@code bytes:v1}, {@code kryo:v1:<classes>} (when every class is on the tool's class path), {@code range:v1},
 * {@code kafka-offset-range:v1} and {@code partitioned:v1(<id>)} of any of these. Anything else is unknown: the
 * caller shows raw bytes and says so, never a guessed type. Stateless and thread-safe.
 */
public final class CodecIds {
  private static final String KRYO = "kryo:v1:";
  private static final String PARTITIONED = "partitioned:v1(";

  private CodecIds() {
  }

  /** A resolved codec, or why there is none. */
  public record Resolution(Optional<Codec<?>> codec, String why) {
    static Resolution of(Codec<?> codec) {
      return new Resolution(Optional.of(codec), "");
    }

    static Resolution unknown(String why) {
      return new Resolution(Optional.empty(), why);
    }
  }

  /**
   * @param id a codec id as a table records it ({@code long-be:v1}, {@code kryo:v1:<classes>}, ...)
   * @return the codec whose id is {@code id}, or why it cannot be had
   */
  public static Resolution resolve(String id) {
    switch (id) {
      case "long-be:v1":
        return Resolution.of(Codecs.longs());
      case "utf8:v1":
        return Resolution.of(Codecs.strings());
      case "bytes:v1":
        return Resolution.of(Codecs.bytes());
      case "range:v1":
        return Resolution.of(Range.codec());
      case "kafka-offset-range:v1":
        return Resolution.of(OffsetRange.codec());
      default:
        break;
    }
    if (id.startsWith(KRYO)) {
      return kryo(id.substring(KRYO.length()));
    }
    if (id.startsWith(PARTITIONED) && id.endsWith(")")) {
      Resolution inner = resolve(id.substring(PARTITIONED.length(), id.length() - 1));
      return inner.codec().isEmpty() ? inner : Resolution.of(PartitionedMetadata.codec(inner.codec().get()));
    }
    return Resolution.unknown("codec '" + id + "' is not known to this tool");
  }

  private static Resolution kryo(String names) {
    List<Class<?>> classes = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String name : names.isEmpty() ? new String[0] : names.split(",")) {
      try {
        classes.add(Class.forName(name, false, Thread.currentThread().getContextClassLoader()));
      } catch (ClassNotFoundException | LinkageError e) {
        missing.add(name);
      }
    }
    if (!missing.isEmpty()) {
      return Resolution.unknown("Kryo codec registers " + missing + ", not on the tool's class path (add their "
          + "jar with java -cp)");
    }
    try {
      return Resolution.of(Codecs.kryo(classes.toArray(new Class<?>[0])));
    } catch (IllegalArgumentException e) {
      return Resolution.unknown("Kryo codec over " + classes + " cannot be built: " + e.getMessage());
    }
  }
}
