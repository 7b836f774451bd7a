package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/**
 * The in-memory limit: one thread reads the file line by line, splits each line and counts in a {@link HashMap}
 * of mutable counters. No batches, no fault tolerance.
 */
public final class RawLoop {
  private RawLoop() {
  }

  /**
   * Counts the corpus, timing the whole loop.
   *
   * @param ctx the run: corpus and meter (the other options are ignored)
   * @return the count of every word of the corpus
   * @throws Exception if the corpus cannot be read (the child records it as the run's error)
   */
  public static Map<String, Long> run(RunContext ctx) throws Exception {
    ctx.meter().start();
    HashMap<String, long[]> counts = new HashMap<>(1 << 18);
    try (BufferedReader in = Files.newBufferedReader(ctx.corpus(), StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        for (String word : line.split(" ")) {
          long[] c = counts.get(word);
          if (c == null) {
            counts.put(word, new long[] {1});
          } else {
            c[0]++;
          }
        }
      }
    }
    ctx.meter().stop();
    Map<String, Long> out = new HashMap<>(counts.size() * 2);
    counts.forEach((w, c) -> out.put(w, c[0]));
    return out;
  }
}
