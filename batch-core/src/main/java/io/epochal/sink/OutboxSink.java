package io.epochal.sink;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.state.Epoch;
import io.epochal.store.Outbox;
import io.epochal.store.OutboxEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exactly-once sink to an external system (the transactional outbox): each partition's records of a batch are
 * encoded into the epoch's {@link Outbox} in the commit phase, so the checkpoint commit keeps them with the batch;
 * once the epoch committed they are handed to the {@link Publisher}; when the pipeline starts, the outputs the
 * checkpoint kept for the last committed batch are published for every partition the publisher reports as not
 * published yet ({@link Publisher#lastPublished}). So every committed batch's records reach the publisher exactly
 * once per partition, across crashes anywhere between the commit and the publication, provided the publisher's
 * {@code publish} is atomic and {@code lastPublished} reads its own durable truth.
 *
 * <p>A failed attempt's staged records are dropped ({@link #abort}); a replay stages them again. A publication
 * failure stops the pipeline ({@link io.epochal.errors.SinkPublishException}); the next pipeline over the same stores
 * publishes them first. The pipeline's checkpoint store must {@linkplain io.epochal.store.CheckpointStore#keepsOutbox()
 * keep an outbox} (checked when the pipeline is built).
 *
 * <p>Payload format (version 1): a byte {@code 1}, the record count, then per record its encoded length and bytes.
 * Thread-safe: partitions stage concurrently; {@code open}, {@code afterCommit} and {@code abort} run on the
 * coordinator thread.
 *
 * @param <T> the record type
 * @since 0.4.0
 */
@Stable
public final class OutboxSink<T> implements PartitionedSink<T> {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxSink.class);
  private static final byte FORMAT = 1;

  private final Publisher<T> publisher;
  private final Codec<T> codec;
  /** Staged records per txid, per partition. Guarded by {@code this}. */
  private final Map<Long, TreeMap<Integer, List<T>>> staged = new HashMap<>();
  /** Per partition, the highest txid published; filled by {@link #open}. Guarded by {@code this}. */
  private long[] published;
  private SinkContext context;

  private OutboxSink(Publisher<T> publisher, Codec<T> codec) {
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.codec = Objects.requireNonNull(codec, "codec");
  }

  /**
   * An outbox sink publishing to {@code publisher}, keeping records in the outbox encoded by {@code codec} (which must
   * decode in the next process what this one encoded).
   *
   * @param publisher the external system the records are published to, not null
   * @param codec encodes the records into the outbox, not null
   * @param <T> the record type
   * @return a new sink over {@code publisher}, to add to a stream with {@code stream.to(name, sink)}
   */
  public static <T> OutboxSink<T> of(Publisher<T> publisher, Codec<T> codec) {
    return new OutboxSink<>(publisher, codec);
  }

  /** @return true: the records stage in the epoch's outbox */
  @Override
  public boolean needsOutbox() {
    return true;
  }

  /**
   * Reads what the publisher published per partition and publishes the recovered outputs of the last committed
   * batch it had not published.
   *
   * @throws RuntimeException if the publisher cannot be read or fails to publish; nothing is skipped
   */
  @Override
  public synchronized void open(SinkContext ctx) {
    this.context = Objects.requireNonNull(ctx, "context");
    staged.clear();
    published = new long[ctx.partitions()];
    for (int p = 0; p < published.length; p++) {
      published[p] = publisher.lastPublished(p);
    }
    int republished = 0;
    for (OutboxEntry e : ctx.recovered()) {
      int p = e.partition();
      if (p >= published.length) {
        throw new EpochalException("Pipeline '" + ctx.pipeline() + "': the outbox of sink '" + ctx.sink()
            + "' holds partition " + p + " of txid " + e.txid() + " but the pipeline now has " + published.length
            + " partitions; restore the partition count to publish it", null, false,
            ErrorContext.NONE.withPipeline(ctx.pipeline()).withTxid(e.txid()));
      }
      if (e.txid() > published[p]) {
        publisher.publish(p, e.txid(), decode(e.payload(), e));
        published[p] = e.txid();
        republished++;
      }
    }
    if (!ctx.recovered().isEmpty()) {
      LOG.info("pipeline '{}': sink '{}' ({}) published {} of {} partition(s) of committed txid {} from the outbox",
          ctx.pipeline(), ctx.sink(), publisher.describe(), republished, ctx.recovered().size(), ctx.committedTxid());
    }
  }

  /**
   * Encodes the records into the epoch's outbox and keeps them for {@link #afterCommit}.
   *
   * @throws EpochalException if the epoch offers no outbox (the checkpoint store keeps none)
   * @throws CodecException if a record cannot be encoded
   */
  @Override
  public void stage(Epoch epoch, int partition, List<T> records) {
    Outbox outbox = epoch.staging(Outbox.class).orElseThrow(() -> new EpochalException("Sink " + describe()
        + " needs the epoch's outbox, which " + epoch + " does not offer: its checkpoint store keeps no outbox",
        null, false, ErrorContext.NONE.withPipeline(epoch.pipeline()).withTxid(epoch.txid())));
    List<T> copy = List.copyOf(records);
    outbox.put(partition, encode(copy));
    synchronized (this) {
      staged.computeIfAbsent(epoch.txid(), t -> new TreeMap<>()).put(partition, copy);
    }
  }

  /** Publishes every staged partition of {@code txid} the publisher has not published. */
  @Override
  public synchronized void afterCommit(long txid) {
    TreeMap<Integer, List<T>> parts = staged.remove(txid);
    if (parts == null) {
      return;
    }
    if (published == null) {
      throw new IllegalStateException(describe() + " was not opened");
    }
    for (Map.Entry<Integer, List<T>> e : parts.entrySet()) {
      int p = e.getKey();
      if (txid > published[p]) {
        publisher.publish(p, txid, e.getValue());
        published[p] = txid;
      }
    }
  }

  @Override
  public synchronized void abort(long txid) {
    staged.remove(txid);
  }

  /** Drops every staged, unpublished attempt (what a crashed process had staged dies with it). */
  synchronized void discardStaged() {
    staged.clear();
  }

  /** Closes the publisher (when it is {@link AutoCloseable}). */
  @Override
  public void close() {
    if (publisher instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("closing {} failed", publisher.describe(), e);
      }
    }
  }

  @Override
  public String describe() {
    return "outbox sink to " + publisher.describe();
  }

  @Override
  public String toString() {
    return describe();
  }

  private byte[] encode(List<T> records) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      out.writeInt(records.size());
      for (T r : records) {
        byte[] b = codec.encode(r);
        out.writeInt(b.length);
        out.write(b);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  private List<T> decode(byte[] payload, OutboxEntry entry) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
      byte format = in.readByte();
      if (format != FORMAT) {
        throw new IOException("unknown outbox payload format " + format);
      }
      int n = in.readInt();
      if (n < 0 || n > payload.length) {
        throw new IOException("bad record count " + n);
      }
      List<T> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int len = in.readInt();
        if (len < 0 || len > in.available()) {
          throw new IOException("bad record length " + len + " at record " + i);
        }
        byte[] b = new byte[len];
        in.readFully(b);
        out.add(codec.decode(b));
      }
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes");
      }
      return out;
    } catch (IOException | CodecException e) {
      String pipeline = context == null ? "?" : context.pipeline();
      throw new EpochalException("Pipeline '" + pipeline + "': the outbox entry " + entry + " of " + describe()
          + " cannot be decoded with codec " + codec.id() + " (" + e.getMessage() + "); it is not published and not"
          + " skipped", e, false, ErrorContext.NONE.withPipeline(pipeline).withTxid(entry.txid()));
    }
  }
}
