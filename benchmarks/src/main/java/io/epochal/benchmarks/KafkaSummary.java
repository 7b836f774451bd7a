package io.epochal.benchmarks;

import io.epochal.benchmarks.E2EReport.Summary;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The Kafka section of the harness' summary: the Kafka variants side by side, with the broker's CPU. */
final class KafkaSummary {
  private KafkaSummary() {
  }

  static void append(StringBuilder md, String broker, String topic, E2ESettings s, Map<Variant, Summary> summaries,
      List<E2E.Run> runs) {
    appendSink(md, s, summaries);
    List<Summary> kafka = summaries.values().stream()
        .filter(x -> x.variant().onKafka() && !x.variant().isKafkaSink()).toList();
    if (kafka.isEmpty()) {
      return;
    }
    md.append(String.format(Locale.ROOT, "%nKafka variants on %s, one topic (`%s`, %d partitions, one corpus line per "
            + "record value, no key) read by every Kafka variant of the run, `read_committed`, values deserialized by "
            + "Kafka's `StringDeserializer`. The plain loop: one `KafkaConsumer` assigned to every partition, "
            + "`max.poll.records` %,d, polling until every partition reached its end offset, counting into a "
            + "`HashMap`. Epochal: its Kafka spout (batches of at most %,d records per Kafka partition), exactly-once "
            + "on RocksDB (epoch protocol: state rows, offset ranges and txid in one write batch per batch).%n",
        broker, topic, s.kafkaPartitions, Math.min(10_000, Math.max(1, s.batch / s.kafkaPartitions)),
        Math.max(1, s.batch / s.kafkaPartitions)));
    Summary plain = summaries.get(Variant.KAFKA_PLAIN);
    boolean brokerCpu = runs.stream().filter(r -> r.variant().onKafka() && !r.variant().isKafkaSink())
        .allMatch(r -> r.props().getProperty("brokerCpuNanos") != null);
    md.append("\n| variant | words/s | × plain loop | client CPU s | ")
        .append(brokerCpu ? "broker CPU s | client + broker CPU s per M words | " : "").append("counts |\n")
        .append(brokerCpu ? "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n" : "| --- | ---: | ---: | ---: | --- |\n");
    for (Summary x : kafka) {
      md.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %.2f | ", x.variant().id(), x.wordsPerSecond(),
          plain == null ? "-" : String.format(Locale.ROOT, "%.3f×", x.wordsPerSecond() / plain.wordsPerSecond()),
          x.cpuSeconds()));
      if (brokerCpu) {
        double[] cpu = runs.stream().filter(r -> r.variant() == x.variant())
            .mapToDouble(r -> Long.parseLong(r.props().getProperty("brokerCpuNanos")) / 1e9).sorted().toArray();
        double brokerSeconds = cpu[cpu.length / 2];
        long words = runs.stream().filter(r -> r.variant() == x.variant()).findFirst().map(E2E.Run::words).orElse(0L);
        md.append(String.format(Locale.ROOT, "%.2f | %.2f | ", brokerSeconds,
            words == 0 ? 0 : (x.cpuSeconds() + brokerSeconds) / (words / 1e6)));
      }
      md.append(x.verified() ? "verified" : "WRONG").append(" |\n");
    }
    if (brokerCpu) {
      md.append("\nBroker CPU: the harness JVM's CPU over each child's life (the broker runs there; the harness only "
          + "samples the child).\n");
    }
  }

  /** The sink variants: Epochal's exactly-once Kafka sink against a plain idempotent producer of the same records. */
  private static void appendSink(StringBuilder md, E2ESettings s, Map<Variant, Summary> summaries) {
    Summary plain = summaries.get(Variant.KAFKA_SINK_PLAIN);
    Summary epochal = summaries.get(Variant.EPOCHAL_KAFKA_SINK);
    if (plain == null && epochal == null) {
      return;
    }
    md.append(String.format(Locale.ROOT, "%nKafka sink: the word count of the corpus file in batches of %,d lines, "
        + "each batch's new counts (key word, value count) written to a fresh topic of %d partitions and read back "
        + "`read_committed` (last value per word checked against the recount; a value that does not increase fails "
        + "the run). `kafka-sink-plain`: a HashMap loop and one idempotent producer (`acks=all`). "
        + "`epochal-kafka-sink`: `epochal-rocksdb-tx` with `newValuesStream().to(KafkaSinks.exactlyOnce(..))` (outbox "
        + "in the checkpoint, one Kafka transaction per engine partition and batch).%n%n", s.batch, s.kafkaPartitions));
    md.append("| variant | words/s | × plain producer | CPU s | counts |\n| --- | ---: | ---: | ---: | --- |\n");
    for (Summary x : new Summary[] {plain, epochal}) {
      if (x == null) {
        continue;
      }
      md.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %.2f | %s |%n", x.variant().id(), x.wordsPerSecond(),
          plain == null ? "-" : String.format(Locale.ROOT, "%.3f×", x.wordsPerSecond() / plain.wordsPerSecond()),
          x.cpuSeconds(), x.verified() ? "verified" : "WRONG"));
    }
  }
}
