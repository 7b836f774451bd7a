package io.epochal.spouts;

import io.epochal.errors.SourceChangedException;
import java.util.Optional;

/** Cutting of consecutive index ranges, shared by the range-based spouts. */
final class Ranges {

  private Ranges() {
  }

  /**
   * The range following {@code previous}: at most {@code batchSize} indexes below {@code available}; empty if none.
   *
   * @throws SourceChangedException if {@code previous} ends beyond {@code available}
   */
  static Optional<Range> next(String spout, long txid, Optional<Range> previous, long available, int batchSize) {
    long start = previous.map(Range::end).orElse(0L);
    if (start > available) {
      throw new SourceChangedException("Spout " + spout + ": the batch before txid " + txid + " ended at record "
          + start + " but the source now holds only " + available + " records");
    }
    long end = start + Math.min(available - start, batchSize);
    return end == start ? Optional.empty() : Optional.of(new Range(start, end));
  }

  /**
   * @throws SourceChangedException if {@code range} ends beyond {@code available}
   */
  static void checkAvailable(String spout, Object attempt, Range range, long available) {
    if (range.end() > available) {
      throw new SourceChangedException("Spout " + spout + ": cannot emit range " + range + " for " + attempt
          + ": the source holds only " + available + " records");
    }
  }

  static int checkBatchSize(int batchSize, String what) {
    if (batchSize < 1) {
      throw new IllegalArgumentException(what + " must be >= 1, was " + batchSize);
    }
    return batchSize;
  }

  /** SplitMix64's finalizer: a bijective 64-bit mix. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** A seed derived from several parts; different part sequences give unrelated seeds. */
  static long seed(long... parts) {
    long h = 0x9e3779b97f4a7c15L;
    for (long p : parts) {
      h = mix64(h + mix64(p) + 0x9e3779b97f4a7c15L);
    }
    return h;
  }
}
