package io.epochal.benchmarks.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Words drawn like the end-to-end corpus (Zipf 1.1 over w0…w99999, seed 42), for the microbenchmarks. */
public final class Words {
  private Words() {
  }

  /**
   * Draws words with the corpus' distribution and seed; every call returns the same list.
   *
   * @param n the number of words to draw, non-negative
   * @return {@code n} words {@code w<rank>}, with repeats, in draw order
   */
  public static List<String> zipf(int n) {
    int vocabulary = 100_000;
    double[] cdf = new double[vocabulary];
    double sum = 0;
    for (int r = 0; r < vocabulary; r++) {
      sum += 1.0 / Math.pow(r + 1, 1.1);
      cdf[r] = sum;
    }
    SplittableRandom random = new SplittableRandom(42);
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      double u = random.nextDouble() * sum;
      int lo = 0;
      int hi = vocabulary - 1;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (cdf[mid] < u) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      out.add("w" + lo);
    }
    return out;
  }

  /**
   * {@code n} distinct words {@code w0 … w<n-1>}.
   *
   * @param n the number of words, non-negative
   * @return the words in rank order
   */
  public static List<String> distinct(int n) {
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add("w" + i);
    }
    return out;
  }
}
