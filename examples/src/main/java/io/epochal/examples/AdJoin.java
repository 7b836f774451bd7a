package io.epochal.examples;

import io.epochal.flow.EventTimeProgress;
import io.epochal.flow.Flow;
import io.epochal.flow.FlowStates;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Stream;
import io.epochal.sinks.kafka.KafkaSinkConfig;
import io.epochal.sinks.kafka.KafkaSinks;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.store.table.Row;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * {@code ad-join}: the YTsaurus Flow article's click/show join end to end (see {@link AdJoinLogic} for what it
 * computes). Shows, clicks and factors are read from three Kafka topics by one Kafka spout, each record's event time
 * feeds the watermark of the Flow computation {@code join} (keyed by show id, state and timers in the store's
 * tables), each show's result goes to the output topic through the exactly-once Kafka sink (transactional outbox), and
 * the counts (shows emitted, late and unmatched clicks) to the map state {@code join-counts}. The run stops once every
 * input partition's committed offset reached the end offset it had at the start; then the output topic is read back
 * ({@code read_committed}) and compared, with the counts, to {@link AdJoinLogic#recompute} of the input records below
 * the committed offsets, read back with a plain consumer. Exit code 0 when equal, 1 otherwise (each difference
 * printed). {@code produce ad-join} writes {@link AdJoinInput}'s generated input to the topics.
 */
final class AdJoin {
  static final String PIPELINE = "ad-join";
  static final Duration SETTLE = Duration.ofSeconds(60);

  private AdJoin() {
  }

  /** The transactional-id prefix of the output topic's sink: stable per output topic. */
  static String transactionalIdPrefix(String outTopic) {
    return "epochal-ad-join-" + outTopic;
  }

  static int run(Main.Options o, PrintStream out) {
    KafkaInput.Settings settings = o.kafka().orElseThrow();
    String outTopic = settings.outTopic().orElseThrow();
    try (KafkaInput kafka = KafkaInput.open(settings);
        KafkaInput output = KafkaInput.open(new KafkaInput.Settings(settings.bootstrap(), List.of(outTopic),
            List.of("out-topic"), "end", Optional.empty()));
        TableExampleStore store = (TableExampleStore) Main.openStore(o, UnaryOperator.identity())) {
      out.printf("ad-join: %s -> %s, %s spout, batch size %,d per Kafka partition, %d partitions, %d threads,"
              + " %d in flight%nstore: %s%n", kafka.describe(), outTopic, o.spout(), o.batchSize(), o.partitions(),
          o.threads(), o.inFlight(), store.describe());
      Progress progress = new Progress(out, Progress.isTerminal(out), 0, "records", 1, System::nanoTime);
      PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).partitions(o.partitions()).threads(o.threads())
          .maxBatchesInFlight(o.inFlight())
          .retryPolicy(new RetryPolicy(Main.maxAttempts(0), Duration.ofMillis(1), Duration.ofMillis(20)))
          .listener(progress).checkpointStore(store.tableCheckpoints());
      declare(builder, kafka, settings, o, store, outTopic);
      long started = System.nanoTime();
      RunSummary summary;
      try (Pipeline pipeline = builder.build()) {
        out.printf("pipeline built: resuming after committed txid %,d%n", pipeline.lastCommittedTxid());
        summary = Main.runToStartEnds(pipeline, kafka, store, o);
      } finally {
        progress.finish();
      }
      out.printf("committed %,d batches (txid %d), %,d records in %.2f s%n", summary.batches(), summary.lastTxid(),
          summary.records(), (System.nanoTime() - started) / 1e9);
      return verify(kafka, settings, outTopic, store, out);
    }
  }

  /** Declares the join on {@code builder}: spout, Flow computation, Kafka sink and counts. */
  static void declare(PipelineBuilder builder, KafkaInput kafka, KafkaInput.Settings settings, Main.Options o,
      ExampleStore store, String outTopic) {
    List<String> topics = settings.topics();
    Stream<AdEvent> events = builder.source(kafka.spout("ad-join-input", o.spout(), o.batchSize()))
        .map(r -> AdEvent.parse(r, topics));
    KafkaSinkConfig<AdJoinLogic.Out> sink = KafkaSinkConfig.<AdJoinLogic.Out>strings(AdJoinLogic.Out::showId,
        AdJoinLogic.Out::line).bootstrapServers(settings.bootstrap()).topic(outTopic)
        .transactionalIdPrefix(transactionalIdPrefix(outTopic)).build();
    join(events, store, new RandomFaults(0, 0)).filter(AdJoinLogic.Out::isResult).to("joined",
        KafkaSinks.exactlyOnce(sink));
  }

  /**
   * The join over {@code events}: the factors computation (the factors records read with a one-hour delay), the join
   * computation (shows, clicks, the released factors) and the {@code join-counts} state; returns the join's
   * outputs (results and counts), for the caller's sink.
   */
  static Stream<AdJoinLogic.Out> join(Stream<AdEvent> events, ExampleStore store, RandomFaults faults) {
    // only the factors are read one hour late, by their own computation; the join reads their released records
    Stream<AdEvent> released = Flow.process(events.filter(AdJoinLogic::readDelayed), AdJoinLogic.FACTORS_COMPUTATION,
        AdEvent::showId, AdJoinLogic.Release::new, FlowStates.create(), AdJoinLogic.watermarks(), AdJoinLogic.delay());
    Stream<AdJoinLogic.Out> outs = Flow.process(events.map(AdJoinLogic::forJoin).merge(released),
        AdJoinLogic.COMPUTATION, AdEvent::showId, AdJoinLogic.Processor::new, FlowStates.create(),
        AdJoinLogic.watermarks());
    outs.groupBy(AdJoinLogic.Out::kind).persistentAggregate("join-counts",
        store.counts("join-counts", "transactional", faults), Aggregators.count());
    return outs;
  }

  /** Compares the output topic and the counts with the recomputation; prints the report. @return the exit code */
  private static int verify(KafkaInput kafka, KafkaInput.Settings settings, String outTopic, TableExampleStore store,
      PrintStream out) {
    List<AdEvent> input = new ArrayList<>();
    for (KafkaRecord<String, String> r : kafka.committedRecords(store.checkpoint(PIPELINE))) {
      input.add(AdEvent.parse(r, settings.topics()));
    }
    AdJoinLogic.Expected expected = AdJoinLogic.recompute(input);
    Map<String, List<String>> published = readTopic(settings.bootstrap(), outTopic);
    Map<String, Long> counts = new TreeMap<>();
    store.read("join-counts").forEach((k, v) -> {
      if ((Long) v != 0) {
        counts.put(k, (Long) v);
      }
    });
    long clicked = expected.outputs().values().stream().filter(l -> l.contains("clicked=true")).count();
    out.printf("joined shows: %,d read from %s (%,d expected, %,d of them clicked)%n",
        published.values().stream().mapToLong(List::size).sum(), outTopic, expected.outputs().size(), clicked);
    out.printf("counts: %s (expected %s)%n", counts, expected.counts());
    Optional<EventTimeProgress> progress = FlowStates.eventTimeProgress(store.tableCheckpoints(), PIPELINE,
        AdJoinLogic.COMPUTATION);
    long due = dueCells(store, expected.watermark());
    out.printf("watermark: %s (recomputed %d); state cells left: %,d, due: %,d%n", progress.map(Object::toString)
        .orElse("none"), expected.watermark(), stateCells(store), due);
    List<String> problems = compare(expected, published, counts);
    long maxTime = input.stream().filter(e -> e.kind() != AdEvent.Kind.TICK).mapToLong(AdEvent::time).max()
        .orElse(Long.MIN_VALUE);
    if (maxTime != Long.MIN_VALUE && expected.watermark() >= maxTime + AdJoinLogic.WINDOW + AdJoinLogic.LATENESS
        && due != 0) {
      problems.add(due + " state cells due (an open cell, a show cell without a TTL deadline or with one at or"
          + " before the watermark) although the watermark passed every record's time plus two hours");
    }
    if (!problems.isEmpty()) {
      problems.stream().limit(20).forEach(p -> out.println("MISMATCH " + p));
      return Main.WRONG_STATE;
    }
    out.println("output verified: the output topic (read_committed) and the counts equal a batch recomputation of"
        + " the records below the committed offsets");
    return Main.OK;
  }

  /** The rows of the join's state tables ({@code shows} and {@code open}). */
  static long stateCells(TableExampleStore store) {
    String prefix = PIPELINE + "/" + AdJoinLogic.COMPUTATION + "/";
    return store.rows(prefix + AdJoinLogic.SHOWS).size() + store.rows(prefix + AdJoinLogic.OPEN).size();
  }

  /**
   * The state cells that should be gone at {@code watermark}: every open cell (a show in its hour or a waiting record,
   * gone once the watermark reached their time plus an hour or their time) and every show cell without a TTL
   * deadline or with one at or before
   * {@code watermark}. Cells whose deadline is after {@code watermark} are not counted: they expire at a later
   * watermark.
   */
  static long dueCells(TableExampleStore store, long watermark) {
    String prefix = PIPELINE + "/" + AdJoinLogic.COMPUTATION + "/";
    Map<Object, Long> deadlines = new HashMap<>();
    for (Row r : store.rows(prefix + AdJoinLogic.SHOWS + ".ttl-deadlines")) {
      deadlines.put(r.key().get("key"), r.getLong("deadline"));
    }
    long due = store.rows(prefix + AdJoinLogic.OPEN).size();
    for (Row r : store.rows(prefix + AdJoinLogic.SHOWS)) {
      Long deadline = deadlines.get(r.key().get("key"));
      if (deadline == null || deadline <= watermark) {
        due++;
      }
    }
    return due;
  }

  /**
   * The differences between the expected result and what was published and counted: a show id published twice, a
   * missing, unexpected or different output, a different count. Empty when equal.
   */
  static List<String> compare(AdJoinLogic.Expected expected, Map<String, List<String>> published,
      Map<String, Long> counts) {
    List<String> problems = new ArrayList<>();
    published.forEach((id, lines) -> {
      if (lines.size() > 1) {
        problems.add("show " + id + " published " + lines.size() + " times: " + lines);
      }
      String want = expected.outputs().get(id);
      if (want == null) {
        problems.add("show " + id + " published but not expected: " + lines.get(0));
      } else if (!want.equals(lines.get(0))) {
        problems.add("show " + id + ": expected '" + want + "', published '" + lines.get(0) + "'");
      }
    });
    expected.outputs().forEach((id, line) -> {
      if (!published.containsKey(id)) {
        problems.add("show " + id + " expected but not published: " + line);
      }
    });
    if (!expected.counts().equals(counts)) {
      problems.add("counts " + counts + ", expected " + expected.counts());
    }
    return problems;
  }

  /**
   * Every record of {@code topic} as a {@code read_committed} consumer reads it, by key (values in offset order per
   * partition), once the topic's transactions are decided (its last stable offsets reached its high watermarks,
   * waiting up to {@link #SETTLE}).
   *
   * @throws KafkaInput.Unavailable if the transactions stay open or the topic cannot be read
   */
  static Map<String, List<String>> readTopic(String bootstrap, String topic) {
    return readTopic(bootstrap, topic, true);
  }

  /**
   * Like {@link #readTopic(String, String)}; without {@code settle}, reads what a read_committed consumer sees now
   * (up to the last stable offsets: an open transaction hides what follows it).
   */
  static Map<String, List<String>> readTopic(String bootstrap, String topic, boolean settle) {
    try (KafkaConsumer<String, String> committed = KafkaInput.consumer(bootstrap);
        KafkaConsumer<String, String> uncommitted = consumer(bootstrap, "read_uncommitted")) {
      List<TopicPartition> tps = committed.partitionsFor(topic, KafkaInput.TIMEOUT).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      long deadline = System.nanoTime() + SETTLE.toNanos();
      Map<TopicPartition, Long> end = committed.endOffsets(tps, KafkaInput.TIMEOUT);
      while (settle && !end.equals(uncommitted.endOffsets(tps, KafkaInput.TIMEOUT))) {
        if (System.nanoTime() > deadline) {
          throw new KafkaInput.Unavailable("transactions on " + topic + " still open after " + SETTLE.toSeconds()
              + " s (last stable offsets " + end + ")", null);
        }
        Thread.sleep(50);
        end = committed.endOffsets(tps, KafkaInput.TIMEOUT);
      }
      Map<String, List<String>> out = new HashMap<>();
      committed.assign(tps);
      committed.seekToBeginning(tps);
      long lastProgress = System.nanoTime();
      while (true) {
        boolean open = false;
        for (TopicPartition tp : tps) {
          open |= committed.position(tp, KafkaInput.TIMEOUT) < end.get(tp);
        }
        if (!open) {
          return out;
        }
        for (ConsumerRecord<String, String> r : committed.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            out.computeIfAbsent(Objects.requireNonNullElse(r.key(), ""), k -> new ArrayList<>()).add(r.value());
            lastProgress = System.nanoTime();
          }
        }
        if (System.nanoTime() - lastProgress > SETTLE.toNanos()) {
          throw new KafkaInput.Unavailable("cannot read " + topic + " to its end " + end + " (no progress for "
              + SETTLE.toSeconds() + " s)", null);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaInput.Unavailable("interrupted while reading " + topic, e);
    } catch (KafkaException e) {
      throw new KafkaInput.Unavailable("cannot read " + topic + " at " + bootstrap + ": " + e, e);
    }
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(KafkaInput.TIMEOUT.toMillis()));
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  /**
   * {@code produce ad-join --bootstrap HOST:PORT --shows-topic T --clicks-topic T --factors-topic T [--shows N]
   * [--seed S] [--topic-partitions P] [--out-topic T] [--show-gap-ms G]}: writes {@link AdJoinInput#generate} to the topics (missing
   * ones created with P partitions, default 4; shows G to 2G ms apart, default 500), each record to its generated partition, in arrival order; a missing
   * {@code --out-topic} is created empty, for {@code ad-join}.
   */
  static int produce(String[] args, PrintStream out) {
    List<String> known = List.of("bootstrap", "shows-topic", "clicks-topic", "factors-topic", "out-topic", "shows",
        "seed", "topic-partitions", "show-gap-ms");
    Map<String, String> opts = CommandLine.options(args, 0, known, "produce ad-join");
    String bootstrap = opts.get("bootstrap");
    if (bootstrap == null) {
      throw new Main.UsageException("produce ad-join needs --bootstrap HOST:PORT");
    }
    CommandLine.bootstrapServers(bootstrap);
    List<String> topics = new ArrayList<>();
    for (String o : CommandLine.topicOptions("ad-join")) {
      if (!opts.containsKey(o)) {
        throw new Main.UsageException("produce ad-join needs --" + o + " NAME");
      }
      String t = CommandLine.topic(o, opts.get(o));
      if (topics.contains(t)) {
        throw new Main.UsageException("--" + o + ": '" + t + "' is also the --"
            + CommandLine.topicOptions("ad-join").get(topics.indexOf(t)));
      }
      topics.add(t);
    }
    int shows = CommandLine.intValue(opts, "shows", 20_000, 0);
    long seed = CommandLine.longValue(opts, "seed", 42, Long.MIN_VALUE);
    int partitions = CommandLine.intValue(opts, "topic-partitions", 4, 1);
    long gap = CommandLine.longValue(opts, "show-gap-ms", AdJoinInput.Mix.DEFAULT.gapMillis(), 1);
    AdJoinInput.Mix m = AdJoinInput.Mix.DEFAULT;
    AdJoinInput.Mix mix = new AdJoinInput.Mix(gap, m.clicked(), m.late(), m.factors(), m.lateFactors(), m.orphan());
    List<String> create = new ArrayList<>(topics);
    if (opts.containsKey("out-topic")) {
      String t = CommandLine.topic("out-topic", opts.get("out-topic"));
      if (topics.contains(t)) {
        throw new Main.UsageException("--out-topic: '" + t + "' is also an input topic");
      }
      create.add(t); // created empty, for ad-join's output
    }
    Produce.createMissing(bootstrap, create, partitions, out);
    long started = System.nanoTime();
    long[] sent = new long[3];
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = Produce.producer(bootstrap)) {
      int[] counts = new int[3];
      for (int t = 0; t < 3; t++) {
        counts[t] = producer.partitionsFor(topics.get(t)).size();
      }
      for (AdEvent e : AdJoinInput.generate(seed, shows, counts, mix)) {
        if (failure.get() != null) {
          break;
        }
        int t = e.topicIndex();
        sent[t]++;
        producer.send(new ProducerRecord<>(topics.get(t), e.source() % 65_536, e.showId(), e.kafkaValue()),
            (meta, ex) -> {
              if (ex != null) {
                failure.compareAndSet(null, ex);
              }
            });
      }
      producer.flush();
    } catch (KafkaException e) {
      failure.compareAndSet(null, e);
    }
    if (failure.get() != null) {
      throw new KafkaInput.Unavailable("producing to " + topics + " at " + bootstrap + " failed: " + failure.get()
          + " (records before the failure may be in the log)", failure.get());
    }
    for (int t = 0; t < 3; t++) {
      out.printf("produced %,d records to %s at %s%n", sent[t], topics.get(t), bootstrap);
    }
    out.printf("in %.2f s%n", (System.nanoTime() - started) / 1e9);
    return Main.OK;
  }
}
