package io.epochal.examples;

import io.epochal.spouts.GeneratedSpout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code produce word-count|banner-counters --bootstrap HOST:PORT ...}: writes the examples' generated input to Kafka
 * topics, for the Kafka form of the examples. Word count: sentence {@code i} of {@code --seed} as the value of record
 * {@code i} (no key). Banner counters: each show to the shows topic (key = show id, value = banner id), each click to
 * the clicks topic (key = show id, value {@code click}); keys spread both over partitions the same way. A missing
 * topic is created with {@code --topic-partitions} partitions (the broker's default replication); an existing one is
 * appended to. Idempotent producer, {@code acks=all}; every send is awaited, so exit code 0 means every record is in
 * the log.
 */
final class Produce {
  private Produce() {
  }

  static int run(String[] args, java.io.PrintStream out) {
    if (args.length == 0 || !List.of("word-count", "banner-counters").contains(args[0])) {
      throw new Main.UsageException("produce needs a command: produce word-count|banner-counters --bootstrap "
          + "HOST:PORT ...");
    }
    String command = args[0];
    boolean words = command.equals("word-count");
    String countOption = words ? "sentences" : "events";
    List<String> known = new ArrayList<>(List.of("bootstrap", countOption, "seed", "topic-partitions"));
    known.addAll(CommandLine.topicOptions(command));
    Map<String, String> opts = CommandLine.options(args, 1, known, "produce " + command);
    String bootstrap = opts.get("bootstrap");
    if (bootstrap == null) {
      throw new Main.UsageException("produce needs --bootstrap HOST:PORT");
    }
    CommandLine.bootstrapServers(bootstrap);
    List<String> topics = new ArrayList<>();
    for (String o : CommandLine.topicOptions(command)) {
      if (!opts.containsKey(o)) {
        throw new Main.UsageException("produce " + command + " needs --" + o + " NAME");
      }
      topics.add(CommandLine.topic(o, opts.get(o)));
    }
    if (topics.size() == 2 && topics.get(0).equals(topics.get(1))) {
      throw new Main.UsageException("--clicks-topic: '" + topics.get(1) + "' is also the --shows-topic");
    }
    long count = CommandLine.longValue(opts, countOption, 200_000, 0);
    long seed = CommandLine.longValue(opts, "seed", 42, Long.MIN_VALUE);
    int partitions = CommandLine.intValue(opts, "topic-partitions", 4, 1);

    createMissing(bootstrap, topics, partitions, out);
    long started = System.nanoTime();
    long[] sent = new long[topics.size()];
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      LongFunction<String> sentences = GeneratedSpout.sentences(seed);
      LongFunction<BannerEvent> events = BannerEvent.generator(seed);
      for (long i = 0; i < count && failure.get() == null; i++) {
        ProducerRecord<String, String> r;
        int t = 0;
        if (words) {
          r = new ProducerRecord<>(topics.get(0), null, sentences.apply(i));
        } else {
          BannerEvent e = events.apply(i);
          t = e.click() ? 1 : 0;
          r = new ProducerRecord<>(topics.get(t), e.showId(), e.click() ? "click" : e.bannerId());
        }
        sent[t]++;
        producer.send(r, (meta, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
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
    for (int t = 0; t < topics.size(); t++) {
      out.printf("produced %,d records to %s at %s%n", sent[t], topics.get(t), bootstrap);
    }
    out.printf("in %.2f s%n", (System.nanoTime() - started) / 1e9);
    return Main.OK;
  }

  static void createMissing(String bootstrap, List<String> topics, int partitions, java.io.PrintStream out) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(KafkaInput.TIMEOUT.toMillis()));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
    try (Admin admin = Admin.create(p)) {
      Set<String> existing = admin.listTopics().names().get(KafkaInput.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      for (String topic : topics) {
        if (existing.contains(topic)) {
          continue;
        }
        try {
          admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all()
              .get(KafkaInput.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          out.printf("created topic %s with %d partitions%n", topic, partitions);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
      awaitLeaders(admin, topics);
    } catch (TimeoutException e) {
      throw new KafkaInput.Unavailable("Kafka at " + bootstrap + " did not answer within "
          + KafkaInput.TIMEOUT.toSeconds() + " s: is a broker running there? Nothing was written", e);
    } catch (ExecutionException | KafkaException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new KafkaInput.Unavailable("Kafka at " + bootstrap + " refused to list or create " + topics + ": "
          + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaInput.Unavailable("interrupted while creating " + topics, e);
    }
  }

  /** Waits until every partition of the topics has a leader (a new topic's may take a moment). */
  private static void awaitLeaders(Admin admin, List<String> topics) throws InterruptedException,
      ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + KafkaInput.TIMEOUT.toNanos();
    while (true) {
      try {
        boolean ready = admin.describeTopics(topics).allTopicNames().get(KafkaInput.TIMEOUT.toMillis(),
            TimeUnit.MILLISECONDS).values().stream().allMatch(d -> d.partitions().stream()
                .allMatch(pi -> pi.leader() != null));
        if (ready) {
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("no leaders for " + topics);
      }
      Thread.sleep(50);
    }
  }

  static KafkaProducer<String, String> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(KafkaInput.TIMEOUT.toMillis()));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
    // One request in flight per connection keeps the producer idempotent and ordered; with five, an in-process test
    // broker now and then stalled an idempotent producer on OutOfOrderSequenceException (see spouts-kafka's tests).
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }
}
