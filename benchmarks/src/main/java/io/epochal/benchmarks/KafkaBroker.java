package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * The Kafka broker of the Kafka variants, shared by every run of one harness invocation: either one given on the
 * command line ({@code --kafka-bootstrap}), or a real Kafka 4.4.0 broker started in the harness' own JVM (KRaft, one
 * combined controller and broker node, {@code KafkaClusterTestKit} as in spouts-kafka's tests, Kafka's defaults
 * otherwise: no fsync per message, as in production). {@link #load} writes the corpus to a new topic once; every
 * Kafka variant of the run reads that topic. The harness JVM does nothing else while a child runs (it samples the
 * child's RSS every 50 ms), so its CPU time over a child's life is the in-process broker's. Not thread-safe.
 */
final class KafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit cluster;
  private final String bootstrap;
  private String topic;

  private KafkaBroker(KafkaClusterTestKit cluster, String bootstrap) {
    this.cluster = cluster;
    this.bootstrap = bootstrap;
  }

  static KafkaBroker external(String bootstrap) {
    return new KafkaBroker(null, bootstrap);
  }

  static KafkaBroker inProcess() {
    try {
      TestKitNodes nodes = new TestKitNodes.Builder().setBootstrapMetadataVersion(MetadataVersion.latestProduction())
          .setCombined(true).setNumControllerNodes(1).setNumBrokerNodes(1).build();
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
      Map<String, Object> props = new HashMap<>();
      props.put("offsets.topic.replication.factor", "1");
      props.put("offsets.topic.num.partitions", "1");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("transaction.state.log.num.partitions", "1");
      props.forEach(builder::setConfigProp);
      KafkaClusterTestKit cluster = builder.build();
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new KafkaBroker(cluster, cluster.bootstrapServers());
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the in-process Kafka broker", e);
    }
  }

  String bootstrap() {
    return bootstrap;
  }

  /** @return whether the broker runs in this JVM (its CPU is then this process' CPU) */
  boolean isInProcess() {
    return cluster != null;
  }

  String describe() {
    return cluster != null ? "a Kafka 4.4.0 broker in the harness JVM (KRaft, one combined node, KafkaClusterTestKit)"
        : "the Kafka broker at " + bootstrap;
  }

  /**
   * Creates a new topic of {@code partitions} partitions and writes every line of {@code corpus} to it as a record
   * value (no key; line {@code i} to partition {@code i mod partitions}) with an idempotent producer, acks=all.
   *
   * @return the topic
   */
  String load(Path corpus, int partitions, java.io.PrintStream out) {
    long t0 = System.nanoTime();
    topic = "e2e-" + corpus.getFileName().toString().replaceAll("[^a-zA-Z0-9._-]", "_") + "-p" + partitions + "-"
        + System.currentTimeMillis();
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      admin.createTopics(List.of(new NewTopic(topic, java.util.Optional.of(partitions), java.util.Optional.empty())))
          .all().get(60, TimeUnit.SECONDS);
      for (int i = 0; admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic)
          .partitions().stream().anyMatch(p -> p.leader() == null); i++) {
        if (i > 600) {
          throw new IllegalStateException("topic " + topic + " has no leaders after 30 s");
        }
        Thread.sleep(50);
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic + " at " + bootstrap, e);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
    // One request in flight: with five, an idempotent producer to a fresh topic of the in-process broker now and then
    // stalled on OutOfOrderSequenceException (see spouts-kafka's TestBroker).
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    AtomicReference<Exception> failure = new AtomicReference<>();
    long lines = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer()); BufferedReader in = Files.newBufferedReader(corpus, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine(), lines++) {
        producer.send(new ProducerRecord<>(topic, (int) (lines % partitions), null, line), (m, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
          }
        });
      }
      producer.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("loading the corpus into " + topic + " failed", failure.get());
    }
    out.printf(java.util.Locale.ROOT, "Kafka: %s; corpus loaded into topic %s (%d partitions, %,d records) in %.1f s%n",
        describe(), topic, partitions, lines, (System.nanoTime() - t0) / 1e9);
    return topic;
  }

  @Override
  public void close() {
    if (cluster != null) {
      try {
        cluster.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop the in-process Kafka broker", e);
      }
    } else if (topic != null) {
      Properties ap = new Properties();
      ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      try (Admin admin = Admin.create(ap)) {
        admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        System.err.println("could not delete topic " + topic + " at " + bootstrap + ": " + e);
      }
    }
  }
}
