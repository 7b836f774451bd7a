package io.epochal.benchmarks.jmh;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import java.util.ArrayList;
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

/** Kryo encode/decode of a count ({@code Long}) and of a small record-like list, against the fixed long codec. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CodecBench {
  private Codec<Long> kryoLong;
  private Codec<ArrayList<Object>> kryoList;
  private Codec<Long> fixedLong;
  private Long count;
  private ArrayList<Object> banner;
  private byte[] countKryo;
  private byte[] bannerKryo;
  private byte[] countFixed;

  /** Creates the codecs and pre-encodes the values the decode benchmarks read. */
  @Setup
  public void setUp() {
    kryoLong = Codecs.kryo();
    kryoList = Codecs.kryo();
    fixedLong = Codecs.longs();
    count = 123_456_789L;
    banner = new ArrayList<>(List.of("banner-4711", 17L, 3.5, "campaign-42", true));
    countKryo = kryoLong.encode(count);
    bannerKryo = kryoList.encode(banner);
    countFixed = fixedLong.encode(count);
  }

  /** @return the Kryo encoding of a {@code Long} count */
  @Benchmark
  public byte[] kryoEncodeLong() {
    return kryoLong.encode(count);
  }

  /** @return the count decoded from its Kryo encoding */
  @Benchmark
  public Long kryoDecodeLong() {
    return kryoLong.decode(countKryo);
  }

  /** @return the Kryo encoding of a five-element list (two strings, a long, a double and a boolean) */
  @Benchmark
  public byte[] kryoEncodeList() {
    return kryoList.encode(banner);
  }

  /** @return the list decoded from its Kryo encoding */
  @Benchmark
  public ArrayList<Object> kryoDecodeList() {
    return kryoList.decode(bannerKryo);
  }

  /** @return the count in the fixed 8-byte long codec ({@code Codecs.longs()}) */
  @Benchmark
  public byte[] fixedEncodeLong() {
    return fixedLong.encode(count);
  }

  /** @return the count decoded by the fixed long codec */
  @Benchmark
  public Long fixedDecodeLong() {
    return fixedLong.decode(countFixed);
  }
}
