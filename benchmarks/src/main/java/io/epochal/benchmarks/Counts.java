package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/** Word counts as {@code word<TAB>count} lines: how a child run hands its result back for verification. */
public final class Counts {
  private Counts() {
  }

  /**
   * Writes counts as {@code word<TAB>count} lines, replacing {@code file}.
   *
   * @param counts the counts to write (words must contain no tab or line break)
   * @param file the file to write
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(Map<String, Long> counts, Path file) {
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (Map.Entry<String, Long> e : counts.entrySet()) {
        out.append(e.getKey()).append('\t').append(Long.toString(e.getValue())).append('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads counts written by {@link #write}.
   *
   * @param file a file of {@code word<TAB>count} lines
   * @return the counts of the file; a repeated word keeps its last count
   * @throws UncheckedIOException if the file cannot be read
   */
  public static Map<String, Long> read(Path file) {
    Map<String, Long> counts = new HashMap<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        int tab = line.indexOf('\t');
        counts.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counts;
  }

  /**
   * Compares two count maps word by word.
   *
   * @param expected the reference counts
   * @param actual the counts of the run under verification
   * @return null when equal, else the number of differing words and the first five of them
   */
  public static String diff(Map<String, Long> expected, Map<String, Long> actual) {
    if (expected.equals(actual)) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int shown = 0;
    int wrong = 0;
    TreeSet<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    for (String k : keys) {
      Long e = expected.get(k);
      Long a = actual.get(k);
      if (e == null ? a != null : !e.equals(a)) {
        wrong++;
        if (shown++ < 5) {
          sb.append(k).append(": expected ").append(e).append(", got ").append(a).append("; ");
        }
      }
    }
    return wrong + " of " + keys.size() + " words differ (" + expected.size() + " expected, " + actual.size()
        + " counted): " + sb;
  }

  /**
   * Sums the counts.
   *
   * @param counts the counts to sum
   * @return the total of all counts (the number of words counted)
   */
  public static long total(Map<String, Long> counts) {
    long t = 0;
    for (long v : counts.values()) {
      t += v;
    }
    return t;
  }
}
