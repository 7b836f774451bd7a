package io.epochal.benchmarks;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The classpath of each kind of child JVM, filtered from the harness' own (which holds every dependency of this
 * module): Epochal's RocksDB ({@code rocksdbjni}) and Flink's ({@code frocksdbjni}) share the {@code org.rocksdb}
 * package, Epochal's LZ4 ({@code at.yawk.lz4}) and Flink's ({@code org.lz4}) the {@code net.jpountz} package, and
 * Storm brings a second {@code rocksdbjni} and needs {@code log4j-core} (its worker reads log4j's configuration),
 * where the others log through {@code slf4j-simple}; each child sees only its own. The harness' in-process Kafka
 * broker (Kafka's server jars, Scala) stays out of every child; {@code kafka-clients} goes to the plain children.
 */
public final class Classpaths {
  private Classpaths() {
  }

  /**
   * Filters a classpath down to the entries a peer's child JVM may see.
   *
   * @param peer the dependencies the child needs
   * @param full the harness' whole classpath, entries separated by {@link File#pathSeparator}
   * @return the kept entries in their original order, joined by {@link File#pathSeparator}
   */
  public static String forPeer(Variant.Peer peer, String full) {
    List<String> kept = new ArrayList<>();
    for (String entry : full.split(File.pathSeparator)) {
      if (!entry.isEmpty() && keep(peer, entry.replace(File.separatorChar, '/'))) {
        kept.add(entry);
      }
    }
    return String.join(File.pathSeparator, kept);
  }

  static boolean keep(Variant.Peer peer, String e) {
    boolean storm = e.contains("/org/apache/storm/");
    boolean flink = e.contains("/org/apache/flink/") || e.contains("/com/ververica/") || e.contains("/org/lz4/");
    boolean ourRocks = e.contains("/org/rocksdb/") && e.endsWith("-linux64.jar");
    boolean otherRocks = e.contains("/org/rocksdb/") && !ourRocks;
    boolean ourLz4 = e.contains("/at/yawk/lz4/");
    boolean log4jCore = e.contains("/org/apache/logging/log4j/log4j-core/")
        || e.contains("/org/apache/logging/log4j/log4j-slf4j2-impl/");
    boolean slf4jLogging = e.contains("/org/apache/logging/log4j/log4j-to-slf4j/")
        || e.contains("/org/slf4j/slf4j-simple/");
    boolean kafkaClients = e.contains("/org/apache/kafka/kafka-clients/") && !e.endsWith("-test.jar");
    // the in-process broker of the harness (KafkaBroker) and its test kit: never in a child
    boolean kafkaBroker = e.contains("/org/apache/kafka/") && !kafkaClients || e.contains("/org/scala-lang/");
    return switch (peer) {
      case PLAIN -> !storm && !flink && !otherRocks && !log4jCore && !kafkaBroker;
      case STORM -> !flink && !ourRocks && !ourLz4 && !slf4jLogging && !kafkaBroker && !kafkaClients;
      case FLINK -> !storm && !ourRocks && !otherRocks && !ourLz4 && !log4jCore && !kafkaBroker && !kafkaClients;
    };
  }
}
