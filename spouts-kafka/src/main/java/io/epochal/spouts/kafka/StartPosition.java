package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a Kafka spout starts reading a partition that has no committed offset in the pipeline's checkpoint. A
 * pipeline that committed a batch always continues from its committed offsets; the consumer group is never read.
 *
 * <ul>
 *   <li>{@link #earliest()} (the default): the log start.</li>
 *   <li>{@link #latest()}: the log end when the pipeline cuts its first batch; that batch records every partition's
 *       position (possibly with no record), so nothing appended after it is skipped. Partitions that appear later
 *       (the topic grew) start at their log start, so their first records are not skipped either.</li>
 *   <li>{@link #offsets(Map, StartPosition)}: the given offset per partition, {@code otherwise} for the others.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @since 0.1.0
 */
@Evolving
public final class StartPosition {
  /** The kinds of start position. */
  public enum Kind {
    /** The log start. */
    EARLIEST,
    /** The log end at the pipeline's first batch. */
    LATEST,
    /** Explicit offsets per partition. */
    OFFSETS
  }

  private static final StartPosition EARLIEST = new StartPosition(Kind.EARLIEST, Map.of(), null);
  private static final StartPosition LATEST = new StartPosition(Kind.LATEST, Map.of(), null);

  private final Kind kind;
  private final Map<TopicPartition, Long> offsets;
  private final StartPosition otherwise;

  private StartPosition(Kind kind, Map<TopicPartition, Long> offsets, StartPosition otherwise) {
    this.kind = kind;
    this.offsets = offsets;
    this.otherwise = otherwise;
  }

  /**
   * Starts every partition at its log start (the oldest record retention kept).
   *
   * @return the earliest position
   */
  public static StartPosition earliest() {
    return EARLIEST;
  }

  /**
   * Starts every partition at its log end as the pipeline's first batch sees it.
   *
   * @return the latest position
   */
  public static StartPosition latest() {
    return LATEST;
  }

  /**
   * Starts the given partitions at explicit offsets and the others at {@code otherwise}.
   *
   * @param offsets the first offset to read per partition (copied), each {@code >= 0}
   * @param otherwise where partitions missing from {@code offsets} start, not itself explicit
   * @return explicit start offsets
   * @throws IllegalArgumentException if an offset is negative or {@code otherwise} is explicit
   */
  public static StartPosition offsets(Map<TopicPartition, Long> offsets, StartPosition otherwise) {
    Objects.requireNonNull(offsets, "offsets");
    Objects.requireNonNull(otherwise, "otherwise");
    if (otherwise.kind == Kind.OFFSETS) {
      throw new IllegalArgumentException("otherwise must be earliest() or latest(), not explicit offsets");
    }
    TreeMap<TopicPartition, Long> copy = new TreeMap<>(
        java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    offsets.forEach((tp, o) -> {
      Objects.requireNonNull(tp, "partition");
      if (Objects.requireNonNull(o, "offset") < 0) {
        throw new IllegalArgumentException("start offset of " + tp + " must be >= 0, was " + o);
      }
      copy.put(tp, o);
    });
    return new StartPosition(Kind.OFFSETS, java.util.Collections.unmodifiableMap(copy), otherwise);
  }

  /**
   * Which kind of position this is.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
  }

  /**
   * The offset given for one partition by {@link #offsets}.
   *
   * @param partition the topic partition asked about
   * @return the explicit offset of {@code partition}, empty if none was given (always for a kind other than
   *     explicit offsets)
   */
  public OptionalLong offsetOf(TopicPartition partition) {
    Long o = offsets.get(partition);
    return o == null ? OptionalLong.empty() : OptionalLong.of(o);
  }

  /**
   * Where the partitions without an explicit offset start.
   *
   * @return the fallback of explicit offsets; empty for any other kind
   */
  public Optional<StartPosition> otherwise() {
    return Optional.ofNullable(otherwise);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StartPosition s && kind == s.kind && offsets.equals(s.offsets)
        && Objects.equals(otherwise, s.otherwise);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, offsets, otherwise);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case EARLIEST -> "earliest";
      case LATEST -> "latest";
      case OFFSETS -> "offsets " + offsets + " otherwise " + otherwise;
    };
  }
}
