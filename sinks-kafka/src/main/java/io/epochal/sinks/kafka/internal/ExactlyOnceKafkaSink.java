package io.epochal.sinks.kafka.internal;

import io.epochal.sink.OutboxSink;
import io.epochal.sink.PartitionedSink;
import io.epochal.sink.SinkContext;
import io.epochal.sinks.kafka.KafkaOutput.Message;
import io.epochal.sinks.kafka.KafkaSinkConfig;
import io.epochal.sinks.kafka.KafkaSinkException;
import io.epochal.state.Epoch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The sink of {@link io.epochal.sinks.kafka.KafkaSinks#exactlyOnce}: maps each record to its Kafka record when it is
 * staged, and hands the result to an {@link OutboxSink} over a {@link KafkaPublisher}, so the outbox keeps the exact
 * bytes to publish. Thread-safe as {@link OutboxSink} is.
 *
 * @param <T> the record type
 */
public final class ExactlyOnceKafkaSink<T> implements PartitionedSink<T> {
  private final KafkaSinkConfig<T> config;
  private final KafkaPublisher publisher;
  private final OutboxSink<Message> outbox;
  private volatile String pipeline = "?";
  private volatile String sink = "?";

  /**
   * Makes the sink, without test hook.
   *
   * @param config the sink's configuration
   */
  public ExactlyOnceKafkaSink(KafkaSinkConfig<T> config) {
    this(config, KafkaPublisher.NONE);
  }

  /**
   * Makes the sink with a test hook; no producer is created here.
   *
   * @param config the sink's configuration
   * @param hook a test hook around the publisher's transactions
   */
  public ExactlyOnceKafkaSink(KafkaSinkConfig<T> config, KafkaPublisher.Hook hook) {
    this.config = Objects.requireNonNull(config, "config");
    this.publisher = new KafkaPublisher(config, hook);
    this.outbox = OutboxSink.of(publisher, MessageCodec.INSTANCE);
  }

  @Override
  public boolean needsOutbox() {
    return true;
  }

  @Override
  public void open(SinkContext context) {
    pipeline = context.pipeline();
    sink = context.sink();
    publisher.bind(context.pipeline(), context.sink(), context.committedTxid());
    outbox.open(context);
  }

  @Override
  public void stage(Epoch epoch, int partition, List<T> records) {
    List<Message> messages = new ArrayList<>(records.size());
    for (T r : records) {
      Message m;
      try {
        m = config.output().toMessage(config.topic(), r);
      } catch (RuntimeException e) {
        throw new KafkaSinkException("Pipeline '" + pipeline + "': sink '" + sink + "' cannot map a record of txid "
            + epoch.txid() + " (engine partition " + partition + ") to a Kafka record: " + e, e, false, pipeline,
            sink, partition, epoch.txid(), publisher.transactionalId(partition));
      }
      messages.add(Objects.requireNonNull(m, "the KafkaOutput returned null"));
    }
    outbox.stage(epoch, partition, messages);
  }

  @Override
  public void afterCommit(long txid) {
    outbox.afterCommit(txid);
  }

  @Override
  public void abort(long txid) {
    outbox.abort(txid);
  }

  @Override
  public void close() {
    outbox.close();
  }

  @Override
  public String describe() {
    return "exactly-once Kafka sink to " + publisher.describe();
  }

  @Override
  public String toString() {
    return describe();
  }
}
