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

  @Setup
  public void setUp() {
    words = Words.zipf(1000);
    longText = "a longer key such as a URL: https://example.com/path/to/some/resource?with=query&and=more";
  }

  @Benchmark
  public void farmHashWords(Blackhole bh) {
    for (String w : words) {
      bh.consume(FarmHash.farmHash(w));
    }
  }

  @Benchmark
  public void farmHashLongs(Blackhole bh) {
    for (long i = 0; i < 1000; i++) {
      bh.consume(FarmHash.farmHash(i));
    }
  }

  @Benchmark
  public long farmHashLongString() {
    return FarmHash.farmHash(longText);
  }

  @Benchmark
  public void partitionOfWords(Blackhole bh) {
    for (String w : words) {
      bh.consume(Partitioner.partition(w, 4));
    }
  }
}
