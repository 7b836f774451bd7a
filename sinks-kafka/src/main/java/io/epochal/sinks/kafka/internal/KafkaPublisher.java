package io.epochal.sinks.kafka.internal;

import io.epochal.sink.Publisher;
import io.epochal.sinks.kafka.KafkaOutput.Header;
import io.epochal.sinks.kafka.KafkaOutput.Message;
import io.epochal.sinks.kafka.KafkaSinkConfig;
import io.epochal.sinks.kafka.KafkaSinkException;
import io.epochal.sinks.kafka.KafkaSinkFencedException;
import io.epochal.sinks.kafka.KafkaSinkMarkerAheadException;
import io.epochal.sinks.kafka.KafkaSinkUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Publisher} of the exactly-once Kafka sink: one transactional producer per engine partition
 * ({@code transactional.id = prefix-partition}); each {@link #publish} is one Kafka transaction holding the records
 * and the txid marker (the offset {@code txid} of partition 0 of the topic, committed with
 * {@code sendOffsetsToTransaction} to the consumer group named after the transactional id). A producer is created
 * lazily; its {@code initTransactions} fences every older producer of its id and settles that producer's open
 * transaction, and only then is the marker read back ({@code requireStable}), so what this publisher knows was
 * published stays true while it is not fenced.
 *
 * <p>Transient failures are retried until the publish timeout: a commit that timed out is retried as such; another
 * failure aborts the transaction and retries on the same producer; a producer that can no longer abort is replaced,
 * and the new one reads the marker again before deciding whether the batch still needs publishing (so a commit that
 * landed although the call failed is never repeated). A fenced producer is never replaced: the failure is
 * {@link KafkaSinkFencedException}, and this publisher never creates a producer for that partition again (it would
 * fence the newer owner back). A producer replaced after another failure does fence any newer owner; it reads the
 * marker first, so even then nothing is published twice.
 *
 * <p>Called from one thread at a time (the outbox sink's contract); {@link #close} may run on another.
 */
public final class KafkaPublisher implements Publisher<Message>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  /** A test hook around a partition's Kafka transaction (crash points); production uses {@link #NONE}. */
  public interface Hook {
    /**
     * The records and the marker are sent; the transaction is about to commit. An exception thrown here escapes the
     * publication with the transaction still open (a simulated crash before commit).
     *
     * @param partition the engine partition publishing
     * @param txid the batch being published
     */
    default void beforeCommit(int partition, long txid) {
    }

    /**
     * The transaction committed; the outbox sink does not know it yet. An exception thrown here escapes the
     * publication after the commit (a simulated crash before the outbox learns of it).
     *
     * @param partition the engine partition that published
     * @param txid the batch published
     */
    default void afterCommit(int partition, long txid) {
    }
  }

  /** No hook. */
  public static final Hook NONE = new Hook() {
  };

  private final KafkaSinkConfig<?> config;
  private final Hook hook;
  private final TopicPartition markerPartition;
  /** Guarded by {@code this}. */
  private final Map<Integer, Producer<byte[], byte[]>> producers = new HashMap<>();
  /** Per partition, the last txid its producer's marker shows; valid while that producer is not fenced. */
  private final Map<Integer, Long> known = new HashMap<>();
  /** The partitions whose producer was fenced: this publisher never creates a producer for them again. */
  private final Map<Integer, KafkaSinkFencedException> fenced = new HashMap<>();
  private Admin admin;
  private volatile String pipeline = "?";
  private volatile String sink = "?";
  private volatile long committedTxid = Long.MAX_VALUE;
  private volatile boolean closed;

  /**
   * Makes the publisher; producers and the admin client are created when first needed, not here.
   *
   * @param config the sink's configuration
   * @param hook the test hook, {@link #NONE} in production
   */
  public KafkaPublisher(KafkaSinkConfig<?> config, Hook hook) {
    this.config = Objects.requireNonNull(config, "config");
    this.hook = Objects.requireNonNull(hook, "hook");
    this.markerPartition = new TopicPartition(config.topic(), 0);
  }

  /**
   * The pipeline starts: its name, the sink's name and the committed txid the markers must not exceed.
   *
   * @param pipelineName the pipeline's name, named in errors and in the markers' metadata
   * @param sinkName the sink's name in the pipeline, named in errors and in the markers' metadata
   * @param committed the last txid the pipeline's checkpoint committed; a marker above it is
   *     {@link io.epochal.sinks.kafka.KafkaSinkMarkerAheadException}
   * @throws NullPointerException if a name is null
   */
  public void bind(String pipelineName, String sinkName, long committed) {
    this.pipeline = Objects.requireNonNull(pipelineName, "pipeline");
    this.sink = Objects.requireNonNull(sinkName, "sink");
    this.committedTxid = committed;
  }

  /**
   * The transactional id of one engine partition's producer: {@code prefix-partition}.
   *
   * @param partition the engine partition
   * @return the transactional id of engine partition {@code partition} (also its marker group)
   */
  public String transactionalId(int partition) {
    return config.transactionalIdPrefix() + "-" + partition;
  }

  private String markerMetadata(int partition) {
    return "epochal-sink pipeline=" + pipeline + " sink=" + sink + " partition=" + partition;
  }

  /**
   * Initializes the partition's producer (fencing older ones) and reads its marker.
   *
   * @throws KafkaSinkMarkerAheadException if the marker is above the checkpoint's committed txid
   */
  @Override
  public synchronized long lastPublished(int partition) {
    long deadline = System.nanoTime() + config.publishTimeout().toNanos();
    Duration backoff = Duration.ofMillis(50);
    while (true) {
      try {
        producer(partition, 0);
        long marker = known.get(partition);
        if (marker > committedTxid) {
          throw new KafkaSinkMarkerAheadException("Pipeline '" + pipeline + "': sink '" + sink + "' finds txid "
              + marker + " published under transactional id '" + transactionalId(partition) + "' (engine partition "
              + partition + ") but the checkpoint committed only txid " + committedTxid + ": another pipeline or"
              + " sink publishes with this prefix, or the checkpoint was reset or restored from an older copy. Give"
              + " each sink its own transactional id prefix or restore the matching checkpoint.", pipeline, sink,
              partition, marker, committedTxid, transactionalId(partition));
        }
        return marker;
      } catch (KafkaException e) {
        KafkaSinkException fatal = fatal(e, partition, 0, List.of());
        discard(partition);
        if (fatal != null) {
          throw fatal;
        }
        backoff = waitOrGiveUp(e, partition, 0, deadline, backoff, "read back its txid marker");
      }
    }
  }

  @Override
  public synchronized void publish(int partition, long txid, List<Message> records) {
    long deadline = System.nanoTime() + config.publishTimeout().toNanos();
    Duration backoff = Duration.ofMillis(50);
    int attempt = 0;
    while (true) {
      attempt++;
      Producer<byte[], byte[]> p = null;
      List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
      try {
        p = producer(partition, txid);
        long marker = known.get(partition);
        if (txid <= marker) {
          LOG.info("pipeline '{}': sink '{}' partition {}: txid {} already published (marker {}), not again",
              pipeline, sink, partition, txid, marker);
          return;
        }
        p.beginTransaction();
        for (Message m : records) {
          sent.add(p.send(record(m)));
        }
        p.sendOffsetsToTransaction(Map.of(markerPartition, new OffsetAndMetadata(txid, markerMetadata(partition))),
            new ConsumerGroupMetadata(transactionalId(partition)));
        hook.beforeCommit(partition, txid);
        commit(p, deadline);
        known.put(partition, txid);
        if (attempt > 1) {
          LOG.info("pipeline '{}': sink '{}' partition {}: txid {} published at attempt {}", pipeline, sink,
              partition, txid, attempt);
        }
        hook.afterCommit(partition, txid);
        return;
      } catch (KafkaException e) {
        KafkaSinkException fatal = fatal(e, partition, txid, sent);
        if (fatal != null) {
          discard(partition);
          throw fatal;
        }
        if (p != null && !abort(p, partition, txid)) {
          discard(partition);
        }
        backoff = waitOrGiveUp(e, partition, txid, deadline, backoff, "publish " + records.size() + " record(s)");
      }
    }
  }

  /** Commits, retrying a commit that timed out (the producer allows it) until the deadline. */
  private void commit(Producer<byte[], byte[]> p, long deadline) {
    while (true) {
      try {
        p.commitTransaction();
        return;
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline || closed) {
          throw e;
        }
        LOG.warn("pipeline '{}': sink '{}': commit timed out, retrying it", pipeline, sink);
      }
    }
  }

  /** @return true if the transaction was aborted and the producer can go on; false if it must be replaced */
  private boolean abort(Producer<byte[], byte[]> p, int partition, long txid) {
    try {
      p.abortTransaction();
      return true;
    } catch (ProducerFencedException e) {
      discard(partition);
      throw fenced(e, partition, txid);
    } catch (KafkaException | IllegalStateException e) {
      LOG.debug("abort failed; the producer is replaced", e);
      return false;
    }
  }

  private Duration waitOrGiveUp(KafkaException e, int partition, long txid, long deadline, Duration backoff,
      String doing) {
    if (closed) {
      throw new KafkaSinkException("Pipeline '" + pipeline + "': sink '" + sink + "' was closed while trying to "
          + doing + " (engine partition " + partition + ", txid " + txid + ")", e, true, pipeline, sink, partition,
          txid, transactionalId(partition));
    }
    if (System.nanoTime() + backoff.toNanos() > deadline) {
      throw new KafkaSinkUnavailableException("Pipeline '" + pipeline + "': sink '" + sink + "' could not " + doing
          + " to topic '" + config.topic() + "' at " + config.bootstrapServers() + " within "
          + config.publishTimeout().toSeconds() + " s (engine partition " + partition + ", txid " + txid
          + ", transactional id '" + transactionalId(partition) + "'): " + e + ". Nothing of the batch is visible;"
          + " it stays in the checkpoint's outbox and a new pipeline publishes it first.", e, pipeline, sink,
          partition, txid, transactionalId(partition));
    }
    LOG.warn("pipeline '{}': sink '{}' partition {} txid {}: {} failed ({}); retrying in {} ms", pipeline, sink,
        partition, txid, doing, e.toString(), backoff.toMillis());
    try {
      Thread.sleep(backoff.toMillis());
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new KafkaSinkException("Pipeline '" + pipeline + "': sink '" + sink + "' interrupted while trying to "
          + doing, ie, false, pipeline, sink, partition, txid, transactionalId(partition));
    }
    Duration next = backoff.multipliedBy(2);
    return next.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : next;
  }

  /** @return the failure no retry fixes, or null if {@code e} may be transient */
  private KafkaSinkException fatal(KafkaException e, int partition, long txid, List<Future<RecordMetadata>> sent) {
    if (e instanceof ProducerFencedException) {
      return fenced(e, partition, txid);
    }
    Throwable refused = refusal(e);
    for (Future<RecordMetadata> f : sent) {
      if (refused != null) {
        break;
      }
      if (f.isDone()) {
        try {
          f.get(0, TimeUnit.MILLISECONDS);
        } catch (ExecutionException x) {
          refused = refusal(x.getCause());
          if (x.getCause() instanceof ProducerFencedException) {
            return fenced(x.getCause(), partition, txid);
          }
        } catch (InterruptedException x) {
          Thread.currentThread().interrupt();
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.CancellationException x) {
          // not decided: no information
        }
      }
    }
    if (refused == null) {
      return null;
    }
    return new KafkaSinkException("Pipeline '" + pipeline + "': Kafka refused the outputs of sink '" + sink
        + "' for topic '" + config.topic() + "' (engine partition " + partition + ", txid " + txid
        + ", transactional id '" + transactionalId(partition) + "'): " + refused + ". Nothing of the batch is"
        + " visible; it stays in the checkpoint's outbox. Fix the cause (record size, ACLs, topic) and start a new"
        + " pipeline.", e, false, pipeline, sink, partition, txid, transactionalId(partition));
  }

  private static Throwable refusal(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RecordTooLargeException || c instanceof RecordBatchTooLargeException
          || c instanceof InvalidTopicException || c instanceof SerializationException
          || c instanceof AuthorizationException || c instanceof AuthenticationException
          || c instanceof UnsupportedVersionException || c instanceof TransactionalIdAuthorizationException) {
        return c;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  private KafkaSinkFencedException fenced(Throwable e, int partition, long txid) {
    KafkaSinkFencedException f = new KafkaSinkFencedException("Pipeline '" + pipeline + "': the producer of sink '" + sink
        + "' for engine partition " + partition + " (transactional id '" + transactionalId(partition) + "') was fenced"
        + " while publishing txid " + txid + ": another process started this pipeline's sink with the same"
        + " transactional id. Its transaction is aborted and this process must stop; the newer one publishes what is"
        + " committed.", e, pipeline, sink, partition, txid, transactionalId(partition));
    fenced.putIfAbsent(partition, f);
    return f;
  }

  /** The partition's producer, created, initialized and with its marker read if it was not yet. */
  private Producer<byte[], byte[]> producer(int partition, long txid) {
    Producer<byte[], byte[]> p = producers.get(partition);
    if (p != null) {
      return p;
    }
    KafkaSinkFencedException wasFenced = fenced.get(partition);
    if (wasFenced != null) {
      // a new producer would fence the newer owner back: this publisher stays out for good
      throw new KafkaSinkFencedException("Pipeline '" + pipeline + "': the producer of sink '" + sink
          + "' for engine partition " + partition + " (transactional id '" + transactionalId(partition) + "') was"
          + " fenced before; this sink does not publish txid " + txid + " nor any other. Build a new pipeline.",
          wasFenced, pipeline, sink, partition, txid, transactionalId(partition));
    }
    if (closed) {
      throw new KafkaException("the sink is closed");
    }
    p = new KafkaProducer<>(producerProperties(partition), new ByteArraySerializer(), new ByteArraySerializer());
    try {
      p.initTransactions();
      long marker = readMarker(partition);
      producers.put(partition, p);
      known.put(partition, marker);
      return p;
    } catch (RuntimeException e) {
      try {
        p.close(Duration.ZERO);
      } catch (RuntimeException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  private Properties producerProperties(int partition) {
    Properties props = new Properties();
    props.putAll(config.clientProperties());
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(partition));
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    long api = config.apiTimeout().toMillis();
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, api);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(500, api / 2));
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) (Math.max(500, api / 2) + api));
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) config.transactionTimeout().toMillis());
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "epochal-sink-" + transactionalId(partition));
    return props;
  }

  /** The marker of the partition's group, 0 if none; a marker of another pipeline or sink is refused. */
  private long readMarker(int partition) {
    String group = transactionalId(partition);
    Map<TopicPartition, OffsetAndMetadata> offsets;
    try {
      offsets = admin().listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().requireStable(true)
          .timeoutMs((int) config.apiTimeout().toMillis()))
          .partitionsToOffsetAndMetadata().get(config.apiTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return 0;
      }
      throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new TimeoutException("reading the marker of group " + group + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted reading the marker of group " + group, e);
    }
    OffsetAndMetadata m = offsets.get(markerPartition);
    if (m == null) {
      return 0;
    }
    if (!m.metadata().equals(markerMetadata(partition))) {
      throw new KafkaSinkException("Pipeline '" + pipeline + "': the txid marker of sink '" + sink + "' in consumer"
          + " group '" + group + "' was written by '" + m.metadata() + "', not by this pipeline's sink ('"
          + markerMetadata(partition) + "'): two sinks share the transactional id prefix '"
          + config.transactionalIdPrefix() + "'. Give each its own prefix.", null, false, pipeline, sink, partition,
          m.offset(), group);
    }
    return m.offset();
  }

  private Admin admin() {
    if (admin == null) {
      Properties props = new Properties();
      props.putAll(config.clientProperties());
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
      props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) config.apiTimeout().toMillis());
      props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(500, config.apiTimeout().toMillis() / 2));
      props.put(AdminClientConfig.CLIENT_ID_CONFIG, "epochal-sink-" + config.transactionalIdPrefix());
      admin = Admin.create(props);
    }
    return admin;
  }

  private ProducerRecord<byte[], byte[]> record(Message m) {
    List<org.apache.kafka.common.header.Header> headers = new ArrayList<>(m.headers().size());
    for (Header h : m.headers()) {
      headers.add(new RecordHeader(h.key(), h.value().orElse(null)));
    }
    Integer kafkaPartition = m.partition().isPresent() ? m.partition().getAsInt() : null;
    return new ProducerRecord<>(config.topic(), kafkaPartition, null, m.key().orElse(null), m.value().orElse(null),
        headers);
  }

  /** Drops the partition's producer without waiting (its open transaction is settled by the next one). */
  private void discard(int partition) {
    Producer<byte[], byte[]> p = producers.remove(partition);
    known.remove(partition);
    if (p != null) {
      try {
        p.close(Duration.ZERO);
      } catch (RuntimeException e) {
        LOG.debug("closing a discarded producer failed", e);
      }
    }
  }

  @Override
  public String describe() {
    return "Kafka topic '" + config.topic() + "' at " + config.bootstrapServers() + " (transactional ids '"
        + config.transactionalIdPrefix() + "-<partition>')";
  }

  /** Closes the producers (an open transaction is aborted by the broker or the next producer) and the admin. */
  @Override
  public void close() {
    closed = true;
    synchronized (this) {
      for (Producer<byte[], byte[]> p : producers.values()) {
        try {
          p.close(config.apiTimeout());
        } catch (RuntimeException e) {
          LOG.warn("closing a producer of {} failed", describe(), e);
        }
      }
      producers.clear();
      known.clear();
      if (admin != null) {
        admin.close(config.apiTimeout());
        admin = null;
      }
    }
  }
}
