package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.List;

/**
 * How the kit's spout cuts the input into batches. Batch {@code t}'s first emission takes the next
 * {@code sizes[(t - 1) mod sizes.size()]} records. A transactional spout re-emits exactly those records on every
 * replay. An opaque spout re-cuts: the {@code k}-th re-emission of a txid in the run ({@code k >= 1}, counted across
 * restarts, including the re-emission of batches discarded behind a failed one) takes
 * {@code recuts[(k - 1) mod recuts.size()]} records from the committed position instead, or the original size when
 * {@code recuts} is empty.
 *
 * <p>Immutable. Lists of ints, so jqwik shrinks them towards one small size and no re-cut.
 *
 * @param sizes batch sizes of first emissions, each at least 1, not empty
 * @param recuts batch sizes of opaque re-emissions, each at least 1; empty: replays keep the original size
 * @since 0.1.0
 */
@Evolving
public record BatchCuts(List<Integer> sizes, List<Integer> recuts) {
  /**
   * Validates the cuts and copies the lists.
   *
   * @param sizes batch sizes of first emissions, each at least 1, not empty
   * @param recuts batch sizes of opaque re-emissions, each at least 1; may be empty
   * @throws NullPointerException if a list or an element is null
   * @throws IllegalArgumentException if {@code sizes} is empty or a size is below 1
   */
  public BatchCuts {
    sizes = List.copyOf(sizes);
    recuts = List.copyOf(recuts);
    if (sizes.isEmpty()) {
      throw new IllegalArgumentException("sizes must not be empty");
    }
    for (int s : sizes) {
      check(s);
    }
    for (int s : recuts) {
      check(s);
    }
  }

  /**
   * Every batch holds {@code size} records; opaque replays keep the size.
   *
   * @param size the records of every batch, at least 1 (the last batch holds what is left)
   * @return cuts with the one size and no re-cut
   * @throws IllegalArgumentException if {@code size < 1}
   */
  public static BatchCuts fixed(int size) {
    return new BatchCuts(List.of(size), List.of());
  }

  /**
   * Returns how many records the first emission of a batch takes.
   *
   * @param txid the batch, from 1
   * @return the size of the first emission of batch {@code txid}
   */
  public int size(long txid) {
    return sizes.get((int) ((txid - 1) % sizes.size()));
  }

  /**
   * Returns how many records an opaque spout's re-emission of a batch takes from the committed position.
   *
   * @param txid the batch, from 1
   * @param reemission the re-emission's number in the run, from 1
   * @return the size of re-emission number {@code reemission} of batch {@code txid}
   * @throws IllegalArgumentException if {@code reemission < 1}
   */
  public int recut(long txid, int reemission) {
    if (reemission < 1) {
      throw new IllegalArgumentException("reemission must be >= 1, was " + reemission);
    }
    return recuts.isEmpty() ? size(txid) : recuts.get((reemission - 1) % recuts.size());
  }

  private static void check(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("batch sizes must be >= 1, was " + size);
    }
  }

  @Override
  public String toString() {
    return "cuts " + sizes + (recuts.isEmpty() ? "" : ", re-cuts " + recuts);
  }
}
