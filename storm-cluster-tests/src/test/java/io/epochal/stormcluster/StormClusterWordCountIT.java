package io.epochal.stormcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.spouts.kafka.TestBroker;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutConfig;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutOpaque;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Trident word count with Epochal opaque state on a shared store (PostgreSQL; or the YTsaurus protocol double), on a real multi-process Storm cluster (ZooKeeper,
 * Nimbus, two Supervisors, two worker JVMs), reading a 4-partition Kafka topic with storm-kafka-client's
 * {@code KafkaTridentSpoutOpaque} (through the STORM-1557 guard) from a real KRaft broker in the test JVM: worker JVMs
 * are SIGKILLed repeatedly ({@code -Depochal.storm.kills=N}, default 2), a producer appends to the topic after each
 * kill, then one supervisor is SIGKILLed with its workers; the final counts read from PostgreSQL must equal a recount
 * of the topic (read back with a plain consumer), and no count may ever exceed it.
 */
class StormClusterWordCountIT {
  private static final Duration PROGRESS = Duration.ofSeconds(120);
  private static final long SEED = 1557;
  private static final int PARTITIONS = 4;

  /**
   * On PostgreSQL always; on the YTsaurus protocol double with {@code -Depochal.storm.yt=true} (a second variant, kept
   * out of the default build for its time).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgres", "ytsaurus-double"})
  void countsStayExactAcrossWorkerAndSupervisorKills(String storeKind, @TempDir Path tmp) throws Exception {
    assumeTrue(storeKind.equals("postgres") || Boolean.getBoolean("epochal.storm.yt"),
        "the YTsaurus-double variant runs with -Depochal.storm.yt=true");
    int kills = Integer.getInteger("epochal.storm.kills", 2);
    long sentences = 2 * (1500 + 300L * kills);
    long chunk = sentences / (kills + 2);
    Map<String, Long> expected = new TreeMap<>();
    for (long i = 0; i < sentences; i++) {
      for (String w : TestBroker.sentence(SEED, i).split(" ")) {
        expected.merge(w, 1L, Long::sum);
      }
    }
    List<String> words = new ArrayList<>(expected.keySet());
    long total = expected.values().stream().mapToLong(Long::longValue).sum();
    Path jar = topologyJar(tmp.resolve("topology.jar"));
    Path home = Files.createDirectories(tmp.resolve("storm"));
    StormCluster cluster = null;
    try (TestBroker broker = TestBroker.start();
        ClusterStore store = storeKind.equals("postgres") ? new ClusterPostgres() : new ClusterYtDouble();
        StormCluster c = new StormCluster(home)) {
      cluster = c;
      String topic = "sentences";
      broker.createTopic(topic, PARTITIONS);
      long produced = chunk;
      broker.produceSentences(topic, PARTITIONS, SEED, 0, produced);
      c.start();
      Config conf = new Config();
      conf.putAll(c.clientConf());
      conf.setNumWorkers(2);
      conf.setMaxSpoutPending(1); // more in flight makes Storm 2.8.3 itself emit a range twice (STORM-1557)
      conf.setMessageTimeoutSecs(8);
      conf.put(Config.TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS, 50);
      System.setProperty("storm.jar", jar.toString());
      KafkaTridentSpoutOpaque<String, String> spout = new KafkaTridentSpoutOpaque<>(
          KafkaTridentSpoutConfig.builder(broker.bootstrap(), topic)
              .setProp("isolation.level", "read_committed")
              .setProp("max.poll.records", 10)
              .build());
      StormSubmitter.submitTopology("epochal-wc", conf, WordCountTopology.build(spout, "value",
          store.workerStore(), 4));
      System.out.println("[storm-cluster] state and spout ledger on " + store);

      StormCluster.await("the first commit", PROGRESS, () -> sum(checked(store.counts(words), expected)) > 0);
      int done = 0;
      for (int i = 0; i < kills; i++) {
        StormCluster.await("two live workers", PROGRESS, () -> c.allWorkerPids().size() == 2);
        List<Long> pids = c.allWorkerPids();
        long victim = pids.get(i % pids.size());
        long before = sum(checked(store.counts(words), expected));
        StormCluster.kill(victim, true);
        done++;
        broker.produceSentences(topic, PARTITIONS, SEED, produced, produced + chunk);
        produced += chunk;
        System.out.println("[storm-cluster] SIGKILL worker " + victim + " (kill " + done + "), committed words "
            + before + "/" + total + ", sentences in the topic " + produced + "/" + sentences);
        StormCluster.await("a commit after kill " + done, PROGRESS,
            () -> sum(checked(store.counts(words), expected)) > before || sum(store.counts(words)) == total);
      }
      broker.produceSentences(topic, PARTITIONS, SEED, produced, sentences);
      StormCluster.await("two live workers", PROGRESS, () -> c.allWorkerPids().size() == 2);
      long beforeSupervisor = sum(checked(store.counts(words), expected));
      c.killSupervisor("supervisor1");
      System.out.println("[storm-cluster] SIGKILL supervisor1 and its workers, committed words " + beforeSupervisor
          + "/" + total);
      Map<String, Long> recount = recount(broker.values(topic));
      assertEquals(expected, recount, "the topic's recount differs from what was produced");
      StormCluster.await("the recount", Duration.ofSeconds(240),
          () -> checked(store.counts(words), recount).equals(recount));
      Thread.sleep(3000); // nothing may land after the last batch
      assertEquals(recount, store.counts(words));
      System.out.println("[storm-cluster] worker kills: " + done + ", supervisor kills: 1, words counted: " + total
          + " from " + sentences + " Kafka records (exact)");
    } catch (Throwable t) {
      if (cluster != null) {
        System.out.println(cluster.logs());
      }
      throw t;
    } finally {
      if (cluster != null) {
        cluster.close();
        List<Long> left = cluster.alive();
        assertTrue(left.isEmpty(), () -> "processes left after the teardown: " + left);
      }
    }
  }

  private static Map<String, Long> recount(List<String> sentences) {
    Map<String, Long> out = new TreeMap<>();
    for (String s : sentences) {
      for (String w : s.split(" ")) {
        out.merge(w, 1L, Long::sum);
      }
    }
    return out;
  }

  private static long sum(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Fails at once if a count exceeds the recount (a double count can never be undone later). */
  private static Map<String, Long> checked(Map<String, Long> counts, Map<String, Long> expected) {
    counts.forEach((w, n) -> {
      if (n > expected.getOrDefault(w, 0L)) {
        throw new AssertionError("word " + w + " counted " + n + " times, the data set holds "
            + expected.getOrDefault(w, 0L) + ": " + counts);
      }
    });
    return counts;
  }

  /** The topology jar: this module's test classes (Epochal and its dependencies are in the Storm home's extlib/). */
  static Path topologyJar(Path jar) throws IOException {
    Path classes = Path.of(System.getProperty("epochal.storm.testClasses", "target/test-classes"));
    try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f) && f.toString().endsWith(".class")) {
          zip.putNextEntry(new ZipEntry(classes.relativize(f).toString().replace('\\', '/')));
          Files.copy(f, zip);
          zip.closeEntry();
        }
      }
    }
    return jar;
  }
}
