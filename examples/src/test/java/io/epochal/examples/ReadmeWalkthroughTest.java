package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.testkit.process.ChildJvm;
import io.epochal.tools.Epochal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The top-level README's walk-through ("From a fresh clone to a Kafka word count") runs as written: its {@code $EX}
 * lines are the examples CLI, its {@code $EP} lines the {@code epochal} state tool, with three substitutions only
 * (the in-process broker for {@code localhost:9092}, a temporary directory for {@code /tmp/epochal-wc}, a free port
 * for {@code 9091}). The {@code --until stop} word count runs in a child JVM; the test scrapes its endpoint over HTTP
 * with the {@code curl} line's pattern until the lag of every partition is 0, stops it with SIGTERM, and expects exit
 * code 0 with verified counts; then the dump must equal a recount of the topic, and the checkpoint must show the
 * committed offsets at the end of every partition. The Maven lines themselves are not run.
 */
class ReadmeWalkthroughTest {
  private static final Path README = Path.of("..", "README.md");
  private static final String HEADING = "## From a fresh clone to a Kafka word count";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Duration WAIT = Duration.ofMinutes(3);
  private static KafkaClusterTestKit cluster;
  private static String bootstrap;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startBroker() throws Exception {
    TestKitNodes nodes = new TestKitNodes.Builder().setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .setCombined(true).setNumControllerNodes(1).setNumBrokerNodes(1).build();
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
    Map<String, Object> props = new HashMap<>();
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "1");
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "2");
    props.forEach(builder::setConfigProp);
    cluster = builder.build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    bootstrap = cluster.bootstrapServers();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A line of the walk-through's bash block: {@code $EX="..."}, {@code $EP="..."} or the {@code curl} line. */
  record Line(String tool, List<String> args, String text) {
  }

  static List<Line> walkthrough(String readme) {
    int at = readme.indexOf("\n" + HEADING + "\n");
    assertTrue(at >= 0, "README.md has the section '" + HEADING + "'");
    int open = readme.indexOf("```bash\n", at);
    int close = readme.indexOf("\n```", open + 1);
    assertTrue(open > at && close > open, "the section has a bash block");
    Pattern command = Pattern.compile("^\\$(EX|EP)=\"([^\"]*)\"$");
    List<Line> lines = new ArrayList<>();
    for (String l : readme.substring(open + 8, close).split("\n")) {
      Matcher m = command.matcher(l.trim());
      if (m.matches()) {
        lines.add(new Line(m.group(1), List.of(m.group(2).trim().split("\\s+")), l));
      } else if (l.startsWith("curl ")) {
        lines.add(new Line("curl", List.of(), l));
      }
    }
    return lines;
  }

  private List<String> substitute(List<String> args) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("localhost:9092")) {
        a = bootstrap;
      } else if (a.equals("/tmp/epochal-wc")) {
        a = tmp.resolve("epochal-wc").toString();
      } else if (i > 0 && args.get(i - 1).equals("--metrics-port")) {
        a = "0";
      }
      out.add(a);
    }
    return out;
  }

  @Test
  void theWalkthroughRunsAsWritten() throws Exception {
    List<Line> lines = walkthrough(Files.readString(README));
    assertEquals(List.of("EX", "EX", "curl", "EP", "EP"), lines.stream().map(Line::tool).toList(),
        "the walk-through: produce, word count, curl, state dump, checkpoint show: " + lines);

    List<String> produce = substitute(lines.get(0).args());
    MainTest.Result produced = MainTest.cli(produce.toArray(new String[0]));
    assertEquals(Main.OK, produced.code(), produced::toString);
    String topic = produce.get(produce.indexOf("--topic") + 1);
    assertTrue(produced.out().contains("produced " + String.format("%,d", Integer.parseInt(
        produce.get(produce.indexOf("--sentences") + 1))) + " records to " + topic), produced::out);

    List<String> wordCount = substitute(lines.get(1).args());
    assertTrue(wordCount.containsAll(List.of("--until", "stop")), "the word count runs until stopped");
    String curl = lines.get(2).text();
    Matcher grep = Pattern.compile("grep -E '([^']+)'").matcher(curl);
    assertTrue(grep.find(), curl);
    Pattern wanted = Pattern.compile(grep.group(1));
    String scrape;
    try (ChildJvm child = ChildJvm.start(Main.class, wordCount)) {
      String endpoint = child.awaitLine(l -> l.startsWith("metrics: http://localhost:"), WAIT);
      assertNotNull(endpoint, () -> "the endpoint's address is printed first; stderr: " + child.stderr());
      URI url = URI.create(endpoint.split(" ")[1]);
      assertTrue(curl.contains("localhost:9091/metrics"), curl);
      scrape = awaitCaughtUp(child, url, wanted);
      child.terminate();
      String verdict = child.awaitLine(l -> l.startsWith("counts verified") || l.startsWith("MISMATCH"), WAIT);
      assertEquals(Main.OK, child.waitFor(WAIT), () -> "exit code after SIGTERM; stderr: " + child.stderr());
      assertNotNull(verdict, () -> "a verdict after SIGTERM; stderr: " + child.stderr());
      assertTrue(verdict.startsWith("counts verified"), verdict);
    }
    List<String> matched = scrape.lines().filter(l -> wanted.matcher(l).find()).toList();
    assertEquals(1, matched.stream().filter(l -> l.startsWith("epochal_batches_committed_total")).count(), scrape);
    assertEquals(4, matched.stream().filter(l -> l.startsWith("epochal_source_lag{")).count(),
        () -> "one lag line per partition: " + matched);

    Map<String, Long> recount = recount(topic);
    ToolResult dump = tool(substitute(lines.get(3).args()));
    assertEquals(0, dump.code(), dump::toString);
    assertEquals(recount, dumpedCounts(dump.out()), "the dump equals a recount of the topic");

    ToolResult checkpoint = tool(substitute(lines.get(4).args()));
    assertEquals(0, checkpoint.code(), checkpoint::toString);
    assertTrue(checkpoint.out().contains("pipeline word-count: committed txid "), checkpoint::out);
    for (Map.Entry<Integer, Long> end : endOffsets(topic).entrySet()) {
      Pattern range = Pattern.compile("partition " + topic + "-" + end.getKey() + ": offsets \\[[0-9]+, "
          + end.getValue() + "\\)");
      assertTrue(range.matcher(checkpoint.out()).find(), () -> "partition " + end + " committed to its end offset: "
          + checkpoint.out());
    }
  }

  /** Scrapes until the committed batches are positive and every partition's lag is 0; returns that scrape. */
  private static String awaitCaughtUp(ChildJvm child, URI url, Pattern wanted) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      assertTrue(child.isAlive(), () -> "the word count runs until stopped; stderr: " + child.stderr());
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      last = r.body();
      List<String> lag = last.lines().filter(l -> wanted.matcher(l).find() && l.startsWith("epochal_source_lag{"))
          .toList();
      double committed = last.lines().filter(l -> l.startsWith("epochal_batches_committed_total"))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
      if (committed > 0 && lag.size() == 4 && lag.stream().allMatch(l -> l.endsWith(" 0.0"))) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the lag never reached 0: " + last);
  }

  record ToolResult(int code, String out, String err) {
  }

  private static ToolResult tool(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Epochal.run(args.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new ToolResult(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The {@code key=... value=N} rows of a text dump. */
  static Map<String, Long> dumpedCounts(String dump) {
    Pattern row = Pattern.compile("^\\s+key=\"([^\"]*)\"\\s+value=(-?[0-9]+)\\s+txid=[0-9]+$");
    Map<String, Long> counts = new TreeMap<>();
    for (String l : dump.split("\n")) {
      Matcher m = row.matcher(l);
      if (m.matches()) {
        counts.put(m.group(1), Long.parseLong(m.group(2)));
      }
    }
    assertFalse(counts.isEmpty(), dump);
    return counts;
  }

  private static KafkaConsumer<String, String> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  private static Map<Integer, Long> endOffsets(String topic) {
    try (KafkaConsumer<String, String> c = consumer()) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      Map<Integer, Long> out = new TreeMap<>();
      c.endOffsets(parts).forEach((tp, end) -> out.put(tp.partition(), end));
      return out;
    }
  }

  /** Every word of every record of {@code topic}, counted with a plain loop. */
  private static Map<String, Long> recount(String topic) {
    Map<Integer, Long> ends = endOffsets(topic);
    Map<String, Long> counts = new TreeMap<>();
    try (KafkaConsumer<String, String> c = consumer()) {
      List<TopicPartition> parts = ends.keySet().stream().map(p -> new TopicPartition(topic, p)).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp.partition()))) {
        assertTrue(System.nanoTime() < deadline, "reading the topic back");
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          Arrays.stream(r.value().split(" ")).filter(w -> !w.isEmpty()).forEach(w -> counts.merge(w, 1L,
              Long::sum));
        }
      }
    }
    return counts;
  }
}
