package io.epochal.spouts.kafka.internal;

import org.apache.kafka.common.TopicPartition;

/** Spout partition names of Kafka partitions: {@code topic-partition}, as Kafka prints them. */
final class PartitionNames {
  private PartitionNames() {
  }

  static String name(TopicPartition tp) {
    return tp.topic() + "-" + tp.partition();
  }

  /** @throws IllegalArgumentException if {@code name} is not {@code topic-partition} */
  static TopicPartition parse(String spout, String name) {
    int dash = name.lastIndexOf('-');
    if (dash <= 0 || dash == name.length() - 1) {
      throw new IllegalArgumentException("Kafka spout '" + spout + "': '" + name + "' is not a Kafka partition name");
    }
    try {
      int partition = Integer.parseInt(name.substring(dash + 1));
      if (partition < 0) {
        throw new NumberFormatException("negative");
      }
      return new TopicPartition(name.substring(0, dash), partition);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Kafka spout '" + spout + "': '" + name + "' is not a Kafka partition name",
          e);
    }
  }
}
