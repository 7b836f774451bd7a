package io.epochal.spouts.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import kafka.server.BrokerServer;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One real in-process KRaft Kafka cluster for a test class: a controller and a broker node (separate, so the broker
 * can be shut down and started again on the same port and log directories while the controller stays up), with the
 * internal topics at replication factor 1. Helpers create topics, produce and read back with plain clients.
 */
public final class TestBroker implements AutoCloseable {
  private final KafkaClusterTestKit cluster;
  private final Admin admin;
  private final String bootstrap;

  private TestBroker(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    this.bootstrap = cluster.bootstrapServers();
    this.admin = cluster.admin(Map.of("request.timeout.ms", 20_000, "default.api.timeout.ms", 60_000));
  }

  private static final java.util.concurrent.atomic.AtomicInteger TOPICS = new java.util.concurrent.atomic.AtomicInteger();

  /** The broker {@link #shared()} hands out, started at its first use. */
  private static TestBroker shared;

  /**
   * The broker shared by the test classes of this JVM that never stop it (JUnit and jqwik alike): started at first
   * use, closed when the JUnit Platform session ends ({@link TestBrokerSessionListener}, after every engine ran);
   * tests keep apart by topic names ({@link #newTopic}). A failed start is thrown to the caller (the next one retries).
   */
  public static synchronized TestBroker shared() {
    if (shared == null) {
      try {
        shared = start();
      } catch (Exception e) {
        throw new IllegalStateException("cannot start the test broker", e);
      }
    }
    return shared;
  }

  /** Closes the {@link #shared()} broker if one was started; the next {@code shared()} starts a new one. */
  static synchronized void closeShared() throws Exception {
    if (shared != null) {
      TestBroker broker = shared;
      shared = null;
      broker.close();
    }
  }

  /** Gives a test class the shared broker: {@code @RegisterExtension static final Use BROKER = new Use();}. */
  public static final class Use implements org.junit.jupiter.api.extension.BeforeAllCallback {
    private TestBroker broker;

    @Override
    public void beforeAll(org.junit.jupiter.api.extension.ExtensionContext context) {
      broker = shared();
    }

    public TestBroker get() {
      return broker;
    }
  }

  /** A topic name not used before in this JVM. */
  public static String newTopic(String what) {
    return what + "-" + TOPICS.incrementAndGet();
  }

  public static TestBroker start() throws Exception {
    // A production metadata version: the test kit's default (the latest testing version) enables unreleased
    // features, with which idempotent producers here got stuck on out-of-order sequence errors.
    TestKitNodes nodes = new TestKitNodes.Builder()
        .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .setCombined(false).setNumControllerNodes(1).setNumBrokerNodes(1)
        .build();
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
    Map<String, Object> props = new HashMap<>();
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "2");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "2");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("log.cleaner.backoff.ms", "200");
    props.put("log.retention.check.interval.ms", "1000");
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "2");
    props.forEach(builder::setConfigProp);
    KafkaClusterTestKit cluster = builder.build();
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new TestBroker(cluster);
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
  }

  public String bootstrap() {
    return bootstrap;
  }

  public Admin admin() {
    return admin;
  }

  private BrokerServer broker() {
    return cluster.brokers().values().iterator().next();
  }

  /** Shuts the broker node down (the controller stays up); its port and log directories are kept. */
  public void stopBroker() {
    BrokerServer b = broker();
    b.shutdown();
    b.awaitShutdown();
  }

  /** Starts the broker node again on the same port and log directories, and waits until it serves. */
  public void startBroker() throws Exception {
    broker().startup();
    cluster.waitForReadyBrokers();
  }

  public void createTopic(String topic, int partitions) {
    createTopic(topic, partitions, Map.of());
  }

  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    try {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all()
          .get(60, TimeUnit.SECONDS);
      awaitLeaders(topic, partitions);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  /** Waits until the cluster's metadata lists {@code partitions} partitions of {@code topic}, each with a leader. */
  public void awaitLeaders(String topic, int partitions) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        var d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        if (d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null)) {
          break;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
      if (attempt > 400) {
        throw new IllegalStateException("topic " + topic + " has no leaders after 20 s");
      }
      Thread.sleep(50);
    }
    // and until a producer's metadata sees them too
    try (KafkaProducer<String, String> p = producer()) {
      for (int attempt = 0; p.partitionsFor(topic).size() != partitions; attempt++) {
        if (attempt > 400) {
          throw new IllegalStateException("producers see no " + partitions + " partitions of " + topic);
        }
        Thread.sleep(50);
      }
    }
  }

  /** Deletes {@code topic} and waits until the cluster no longer lists it. */
  public void deleteTopic(String topic) throws Exception {
    admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    for (int attempt = 0; admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic); attempt++) {
      if (attempt > 600) {
        throw new IllegalStateException("topic " + topic + " still listed 30 s after its deletion");
      }
      Thread.sleep(50);
    }
  }

  public KafkaProducer<String, String> producer() {
    return producer(Map.of());
  }

  public KafkaProducer<String, String> producer(Map<String, Object> extra) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
    // With the default 5 requests in flight, an idempotent producer to a fresh topic of this in-process 4.4.0 broker
    // now and then got stuck resending sequence 0 (OutOfOrderSequenceException until its delivery timeout, records
    // lost). One request in flight keeps it idempotent and never showed that.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.putAll(extra);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** Sends {@code values} to {@code partition} of {@code topic} (keys as given, may be null) and flushes. */
  public void produce(String topic, int partition, List<String> keys, List<String> values) {
    try (KafkaProducer<String, String> p = producer()) {
      for (int i = 0; i < values.size(); i++) {
        p.send(new ProducerRecord<>(topic, partition, keys == null ? null : keys.get(i), values.get(i)));
      }
      p.flush();
    }
  }

  /** Sentence {@code i} of a seeded, skewed vocabulary, 1 to 8 words, for word counts. */
  public static String sentence(long seed, long i) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
    int n = r.nextInt(1, 9);
    StringBuilder sb = new StringBuilder();
    for (int w = 0; w < n; w++) {
      double u = r.nextDouble();
      sb.append(w == 0 ? "" : " ").append("w").append((int) (300 * u * u * u));
    }
    return sb.toString();
  }

  /** Sends sentences {@code [from, to)} of {@code seed} round-robin over {@code partitions} partitions. */
  public List<String> produceSentences(String topic, int partitions, long seed, long from, long to) {
    List<String> sent = new ArrayList<>();
    try (KafkaProducer<String, String> p = producer()) {
      for (long i = from; i < to; i++) {
        String v = sentence(seed, i);
        p.send(new ProducerRecord<>(topic, (int) (i % partitions), null, v));
        sent.add(v);
      }
      p.flush();
    }
    return sent;
  }

  /** The values of every record of {@code topic} (read_committed), all partitions. */
  public List<String> values(String topic) {
    List<String> out = new ArrayList<>();
    readAll(topic).values().forEach(rs -> rs.forEach(r -> out.add(r.value())));
    return out;
  }

  /**
   * Waits until every transaction on {@code topic} is decided: its last stable offsets reach its high watermarks. A
   * producer's {@code commitTransaction} returns before the commit markers are written, so a read_committed reader
   * right after it may still stop before the transaction's records.
   */
  public void awaitTransactionsSettled(String topic) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Map<TopicPartition, Long> committed = ends(topic, "read_committed");
      if (committed.equals(ends(topic, "read_uncommitted"))) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("transactions on " + topic + " still open after 60 s: " + committed);
      }
      Thread.sleep(20);
    }
  }

  private Map<TopicPartition, Long> ends(String topic, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> tps = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      return c.endOffsets(tps, Duration.ofSeconds(30));
    }
  }

  /** Every record of {@code topic} (read_committed), read back with a plain consumer, by partition. */
  public Map<Integer, List<ConsumerRecord<String, String>>> readAll(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    Map<Integer, List<ConsumerRecord<String, String>>> out = new HashMap<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> tps = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (tps.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("cannot read " + topic + " to its end " + end);
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
            out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
          }
        }
      }
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    admin.close(Duration.ofSeconds(5));
    cluster.close();
  }
}
