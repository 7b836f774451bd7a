package io.epochal.sink;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import io.epochal.codec.internal.KryoCodec;
import io.epochal.state.Epoch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An in-memory exactly-once sink for tests and examples: an {@link OutboxSink} whose "external system" is this
 * object's list of published records. A failed attempt's records are dropped, a replay stages them again, and the
 * outputs of a batch whose epoch committed just before a (simulated) crash are published by the next pipeline from
 * the checkpoint's outbox, so every committed batch is published exactly once as long as this object outlives the
 * pipelines that write to it. {@link #committed()} holds the published records in txid order (within a batch, in
 * partition order).
 *
 * <p>Records are kept in the outbox with the given codec; by default with Kryo writing class names (bytes that
 * decode only in the same build of the code, which is all an in-memory sink needs). Thread-safe.
 *
 * @param <T> the record type
 * @since 0.3.0
 */
@Stable
public final class CollectingSink<T> implements PartitionedSink<T> {

  /** One published record and the txid of its batch. */
  public record Output<T>(long txid, T value) {
  }

  private final String name;
  private final OutboxSink<T> outbox;
  /** Guarded by {@code this}. */
  private final List<Output<T>> committed = new ArrayList<>();
  /** The highest published txid per partition. Guarded by {@code this}. */
  private final Map<Integer, Long> lastPublished = new HashMap<>();

  /** @param name the sink's name in descriptions */
  public CollectingSink(String name) {
    this(name, KryoCodec.unregistered());
  }

  /**
   * @param name the sink's name in descriptions
   * @param codec the codec of the records in the outbox
   */
  public CollectingSink(String name, Codec<T> codec) {
    this.name = Objects.requireNonNull(name, "name");
    this.outbox = OutboxSink.of(new Publisher<T>() {
      @Override
      public long lastPublished(int partition) {
        synchronized (CollectingSink.this) {
          return lastPublished.getOrDefault(partition, 0L);
        }
      }

      @Override
      public void publish(int partition, long txid, List<T> records) {
        synchronized (CollectingSink.this) {
          for (T r : records) {
            committed.add(new Output<>(txid, r));
          }
          lastPublished.merge(partition, txid, Math::max);
        }
      }

      @Override
      public String describe() {
        return "collecting sink '" + name + "'";
      }
    }, codec);
  }

  @Override
  public boolean needsOutbox() {
    return true;
  }

  @Override
  public void open(SinkContext context) {
    outbox.open(context);
  }

  @Override
  public void stage(Epoch epoch, int partition, List<T> records) {
    outbox.stage(epoch, partition, records);
  }

  @Override
  public void afterCommit(long txid) {
    outbox.afterCommit(txid);
  }

  @Override
  public void abort(long txid) {
    outbox.abort(txid);
  }

  /** Drops everything staged and not published (what a crashed process had staged dies with it). */
  public void discardStaged() {
    outbox.discardStaged();
  }

  /** @return the published records, in txid order */
  public synchronized List<Output<T>> committed() {
    return List.copyOf(committed);
  }

  /** @return the published values, in txid order */
  public synchronized List<T> values() {
    List<T> out = new ArrayList<>(committed.size());
    for (Output<T> o : committed) {
      out.add(o.value());
    }
    return out;
  }

  @Override
  public String describe() {
    return "collecting sink '" + name + "'";
  }

  @Override
  public String toString() {
    return describe();
  }
}
