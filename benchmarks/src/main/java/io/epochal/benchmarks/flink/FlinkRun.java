package io.epochal.benchmarks.flink;

import io.epochal.benchmarks.Meter;
import io.epochal.benchmarks.RunContext;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The word count on Apache Flink 2.x in a MiniCluster (local environment), streaming mode, exactly-once checkpoints
 * every second to the local file system: {@code FileSource} (text lines) → {@code flatMap(split)} →
 * {@code keyBy(word)} → a keyed count in a {@code ValueState<Long>}, emitted once per word at the end of the input
 * (an event-time timer at the final watermark) into an in-JVM sink. Backends: {@code hashmap} (heap) or
 * {@code rocksdb} (incremental checkpoints). The timed section runs from the first record to the job's end
 * (including the final checkpoint Flink takes before finishing).
 */
public final class FlinkRun {
  static volatile Meter meter;
  static final ConcurrentHashMap<String, Long> RESULTS = new ConcurrentHashMap<>();

  private FlinkRun() {
  }

  /**
   * Variant {@code flink-heap}: the job on the heap ({@code hashmap}) state backend.
   *
   * @param ctx the run: corpus, work directory (checkpoints), {@code partitions=} (job parallelism) and the meter;
   *     Flink's net runtime goes to the extra property {@code flinkNetRuntimeMillis}
   * @return the final count of every word, as emitted by the job at the end of the input
   * @throws Exception if the job fails
   */
  public static Map<String, Long> heap(RunContext ctx) throws Exception {
    return run(ctx, "hashmap");
  }

  /**
   * Variant {@code flink-rocksdb}: the job on the RocksDB state backend with incremental checkpoints.
   *
   * @param ctx the run: corpus, work directory (checkpoints), {@code partitions=} (job parallelism) and the meter;
   *     Flink's net runtime goes to the extra property {@code flinkNetRuntimeMillis}
   * @return the final count of every word, as emitted by the job at the end of the input
   * @throws Exception if the job fails
   */
  public static Map<String, Long> rocksdb(RunContext ctx) throws Exception {
    return run(ctx, "rocksdb");
  }

  private static Map<String, Long> run(RunContext ctx, String backend) throws Exception {
    meter = ctx.meter();
    RESULTS.clear();
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, backend);
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, ctx.work().resolve("flink-checkpoints").toUri().toString());
    if (backend.equals("rocksdb")) {
      conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(ctx.partitions());
    env.enableCheckpointing(1000, CheckpointingMode.EXACTLY_ONCE);
    FileSource<String> source = FileSource
        .forRecordStreamFormat(new TextLineInputFormat(), new Path(ctx.corpus().toUri())).build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "corpus").setParallelism(1)
        .flatMap(new Split()).returns(Types.STRING)
        .keyBy(w -> w, Types.STRING)
        .process(new CountWords()).returns(Types.TUPLE(Types.STRING, Types.LONG))
        .sinkTo(new MapSink());
    JobExecutionResult result = env.execute("wordcount-" + backend);
    ctx.meter().stop();
    ctx.extra().setProperty("flinkNetRuntimeMillis", Long.toString(result.getNetRuntime()));
    return new HashMap<>(RESULTS);
  }

  /** Splits a line into words; the first record starts the timed section. */
  public static final class Split implements FlatMapFunction<String, String> {
    private static final long serialVersionUID = 1L;
    private transient boolean started;

    @Override
    public void flatMap(String line, Collector<String> out) {
      if (!started) {
        meter.start();
        started = true;
      }
      for (String w : line.split(" ")) {
        out.collect(w);
      }
    }
  }

  /** Counts per word in keyed state; emits the final count when the input ends. */
  public static final class CountWords extends KeyedProcessFunction<String, String, Tuple2<String, Long>> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(String word, Context ctx, Collector<Tuple2<String, Long>> out) throws IOException {
      Long c = count.value();
      if (c == null) {
        c = 0L;
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      }
      count.update(c + 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple2<String, Long>> out) throws IOException {
      out.collect(Tuple2.of(ctx.getCurrentKey(), count.value()));
    }
  }

  /** Collects the final counts in this JVM. */
  public static final class MapSink implements Sink<Tuple2<String, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<Tuple2<String, Long>> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        @Override
        public void write(Tuple2<String, Long> element, Context context) {
          RESULTS.put(element.f0, element.f1);
        }

        @Override
        public void flush(boolean endOfInput) {
        }

        @Override
        public void close() {
        }
      };
    }
  }
}
