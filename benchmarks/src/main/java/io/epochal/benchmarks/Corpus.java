package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The deterministic word-count corpus: {@code sentences} lines of {@value #WORDS_PER_SENTENCE} words joined by single
 * spaces, each word {@code w<rank>} with rank drawn from a Zipf distribution (exponent {@value #EXPONENT}) over the
 * vocabulary {@code w0 … w<vocabulary-1>} by one {@link SplittableRandom} seeded with {@value #SEED}. Generated once to
 * a file whose name carries every parameter, so later runs reuse it.
 */
public final class Corpus {
  /** Words on every line of the corpus. */
  public static final int WORDS_PER_SENTENCE = 10;
  /** Distinct words the corpus draws from: {@code w0} to {@code w99999}. */
  public static final int VOCABULARY = 100_000;
  /** Exponent of the Zipf distribution of word ranks (rank r has weight {@code 1/(r+1)^EXPONENT}). */
  public static final double EXPONENT = 1.1;
  /** Seed of the corpus' random generator, so every run counts the same corpus. */
  public static final long SEED = 42;

  private Corpus() {
  }

  /**
   * The file of an {@code sentences}-line corpus in {@code dir}, generated if missing (written to a temporary file
   * and moved atomically, so a partly written corpus is never reused).
   *
   * @param dir the directory that holds the corpus files, created if missing
   * @param sentences the number of lines of the corpus, non-negative
   * @return the corpus file, named after all its parameters
   * @throws UncheckedIOException if the corpus cannot be written
   */
  public static Path ensure(Path dir, long sentences) {
    Path file = dir.resolve("corpus-n" + sentences + "-v" + VOCABULARY + "-zipf" + EXPONENT + "-seed" + SEED + ".txt");
    if (Files.exists(file)) {
      return file;
    }
    try {
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, "corpus", ".tmp");
      generate(tmp, sentences, VOCABULARY, EXPONENT, SEED);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the corpus " + file, e);
    }
  }

  /**
   * Writes a corpus with the given parameters, replacing {@code file}; the same arguments always give the same bytes.
   *
   * @param file the file to write
   * @param sentences the number of lines, each of {@value #WORDS_PER_SENTENCE} words
   * @param vocabulary the number of distinct words {@code w0 … w<vocabulary-1>}, at least 1
   * @param exponent the Zipf exponent of the rank distribution (higher: more skewed towards {@code w0})
   * @param seed the seed of the random generator
   * @throws IOException if the file cannot be written
   */
  public static void generate(Path file, long sentences, int vocabulary, double exponent, long seed)
      throws IOException {
    double[] cdf = new double[vocabulary];
    double sum = 0;
    for (int r = 0; r < vocabulary; r++) {
      sum += 1.0 / Math.pow(r + 1, exponent);
      cdf[r] = sum;
    }
    for (int r = 0; r < vocabulary; r++) {
      cdf[r] /= sum;
    }
    cdf[vocabulary - 1] = 1.0;
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder line = new StringBuilder(128);
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (long s = 0; s < sentences; s++) {
        line.setLength(0);
        for (int w = 0; w < WORDS_PER_SENTENCE; w++) {
          if (w > 0) {
            line.append(' ');
          }
          line.append('w').append(rank(cdf, random.nextDouble()));
        }
        line.append('\n');
        out.append(line);
      }
    }
  }

  private static int rank(double[] cdf, double u) {
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * The reference count: a plain loop over the file (also the verification of every run).
   *
   * @param file a corpus file of space-separated words
   * @return each word's number of occurrences in the file
   * @throws UncheckedIOException if the file cannot be read
   */
  public static Map<String, Long> count(Path file) {
    Map<String, Long> counts = new HashMap<>(2 * VOCABULARY);
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        for (String word : line.split(" ")) {
          counts.merge(word, 1L, Long::sum);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counts;
  }
}
