package io.epochal.benchmarks.jmh;

import io.epochal.hash.FarmHash;
import io.epochal.pipeline.Partitioner;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/** YTsaurus {@code farm_hash} of corpus words, of longs, and the partition of a key (per 1,000 keys). */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FarmHashBench {
  private List<String> words;
  private String longText;

  /** Draws the 1,000 corpus-like words the word benchmarks hash. */
  @Setup
  public void setUp() {
    words = Words.zipf(1000);
    longText = "a longer key such as a URL: https://example.com/path/to/some/resource?with=query&and=more";
  }

  /**
   * Hashes 1,000 corpus-like words.
   *
   * @param bh consumes each hash so that it is not optimised away
   */
  @Benchmark
  public void farmHashWords(Blackhole bh) {
    for (String w : words) {
      bh.consume(FarmHash.farmHash(w));
    }
  }

  /**
   * Hashes the longs 0 to 999.
   *
   * @param bh consumes each hash so that it is not optimised away
   */
  @Benchmark
  public void farmHashLongs(Blackhole bh) {
    for (long i = 0; i < 1000; i++) {
      bh.consume(FarmHash.farmHash(i));
    }
  }

  /** @return the hash of one 89-character URL-like key */
  @Benchmark
  public long farmHashLongString() {
    return FarmHash.farmHash(longText);
  }

  /**
   * Computes the partition (of 4) of 1,000 corpus-like words, hash included.
   *
   * @param bh consumes each partition so that it is not optimised away
   */
  @Benchmark
  public void partitionOfWords(Blackhole bh) {
    for (String w : words) {
      bh.consume(Partitioner.partition(w, 4));
    }
  }
}
