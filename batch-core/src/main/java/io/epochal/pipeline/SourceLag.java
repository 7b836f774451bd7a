package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.spout.PartitionLag;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One source's lag as {@link Pipeline#sourceLag()} read it: per source partition the end and committed positions
 * ({@link io.epochal.spout.LagReporting}), or why the source could not be read. A failed read is a {@code failure},
 * never a lag of 0. Immutable and thread-safe.
 *
 * @param source the spout's name
 * @param partitions the positions by partition name (sorted); empty when {@code failure} is present
 * @param failure why the source could not be read (its error type and message), empty when it was read
 * @since 0.5.0
 */
@Stable
public record SourceLag(String source, Map<String, PartitionLag> partitions, Optional<String> failure) {

  /**
   * Validates and copies the fields.
   *
   * @param source the spout's name
   * @param partitions the positions by partition name; empty when {@code failure} is present
   * @param failure why the source could not be read, empty when it was read
   * @throws IllegalArgumentException if both partitions and a failure are given
   */
  public SourceLag {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(failure, "failure");
    partitions = java.util.Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(partitions,
        "partitions")));
    if (failure.isPresent() && !partitions.isEmpty()) {
      throw new IllegalArgumentException("Source '" + source + "': a failed lag read has no partitions");
    }
  }

  /**
   * A successful read.
   *
   * @param source the spout's name
   * @param partitions the positions by partition name
   * @return the lag of {@code source}
   */
  public static SourceLag read(String source, Map<String, PartitionLag> partitions) {
    return new SourceLag(source, partitions, Optional.empty());
  }

  /**
   * A failed read.
   *
   * @param source the spout's name
   * @param failure why the source could not be read
   * @return the lag of {@code source}, unknown
   */
  public static SourceLag failed(String source, String failure) {
    return new SourceLag(source, Map.of(), Optional.of(failure));
  }

  /**
   * The sum of {@link PartitionLag#lag()} over the partitions: offsets after the committed positions up to the ends.
   *
   * @return the total, or empty when the source could not be read
   */
  public OptionalLong total() {
    if (failure.isPresent()) {
      return OptionalLong.empty();
    }
    long sum = 0;
    for (PartitionLag p : partitions.values()) {
      sum += p.lag();
    }
    return OptionalLong.of(sum);
  }
}
