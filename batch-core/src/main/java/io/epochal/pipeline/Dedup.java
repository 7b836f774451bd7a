package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.BucketEntry;
import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.state.RemovableMapState;
import io.epochal.state.RemovableStateFactory;
import io.epochal.state.Staging;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deduplication of a stream's records by message id, for producers that may deliver a record more than once (Flow
 * deduplicates by message id): {@link #byId} keeps the first record of each id and drops every later record with the
 * same id that arrives within a window of batches, remembering the ids in a map state of its own (id → the txid of the
 * batch that delivered it first), which commits with the batch's epoch like any other state.
 *
 * <p>Exactly-once where the pipeline is: the ids a batch marks as seen become durable together with the batch's other
 * state and its spout positions (epoch protocol), or carry the batch's txid (a txid-carrying map on the per-key
 * protocol), so a replayed or re-emitted batch makes the same decisions as the attempt that failed: an id whose stored
 * txid is the batch's own was first delivered by this batch and is kept again. The id state is a state like any other
 * for {@code PipelineBuilder.build()}'s guarantee check.
 *
 * <p>Window: an id is a duplicate while its first delivery is at most {@code windowBatches} txids back (a record of
 * txid {@code t} whose id was first kept at txid {@code s < t} is dropped when {@code t - s <= windowBatches}); after
 * that the id is forgotten and its next record is kept (and starts a new window). Records of one id within one batch
 * are duplicates of the first of them.
 *
 * <p>Expiry: when the id state's factory is a {@link RemovableStateFactory} (the table layouts of state-tables, on any
 * table store; {@code TransactionalMap}, {@code OpaqueMap} and {@code NonTransactionalMap} factories over a
 * {@link io.epochal.state.RemovableBackingMap} such as {@code InMemoryBackingMap}), the ids leave the state once they
 * left the window, so it holds the ids first delivered in the last {@code windowBatches + 1} txids plus their index:
 * the ids kept by batch {@code t} are also written as a bucket {@code t} of the factory's
 * {@linkplain RemovableStateFactory#buckets() bucket state} (one entry per id, {@link BucketEntry}{@code (partition,
 * t, i)}), and batch {@code t} reads bucket {@code t - windowBatches - 1} (in chunks of {@value #CHUNK} entries, until
 * a chunk finds none), deletes those of its ids whose stored first delivery is still that txid (and that the batch did
 * not keep again), then the bucket. All of it is written with the batch, so a replay repeats it exactly; the cost is
 * proportional to the ids that expire, never a scan. Every partition of the state then takes every batch
 * ({@link StateFactory#takesEveryBatch()}). The decisions do not depend on it: an expired id reads as absent instead
 * of as an old txid, and both keep the record. What remains: with another factory, or one whose store cannot delete
 * ({@link RemovableMapState#canRemove()} false), ids are never deleted (the state grows with the number of distinct
 * ids; an expired id's row is reused when the id comes again), which is logged once per state partition at WARN; and
 * a restart with a larger {@code windowBatches} or fewer partitions leaves the buckets it skips (and their ids) behind.
 *
 * <p>Stateless and thread-safe: static methods only; the processor it installs is thread-safe.
 *
 * @since 0.6.0
 */
@Stable
public final class Dedup {
  /** How many bucket entries one read asks for. */
  static final int CHUNK = 512;
  private static final Logger LOG = LoggerFactory.getLogger(Dedup.class);

  private Dedup() {
  }

  /**
   * The records of {@code stream} without duplicates by {@code id} within {@code windowBatches} batches; the records
   * kept keep their order per id (the first of each), not across ids (they are grouped by id first). With a
   * {@link RemovableStateFactory}, ids that left the window are deleted (see {@link Dedup}).
   *
   * @param stream the stream to deduplicate
   * @param name the id state's name, unique among the pipeline's states
   * @param id the message id of a record (a key type of {@link Partitioner}: its partition holds the id's row); a null
   *     id fails the batch with {@link InvalidRecordException}
   * @param windowBatches how many txids after its first delivery an id still counts as seen, at least 1
   * @param seen the map state of ids (e.g. {@code TransactionalMap.factory(..)} or a table layout's factory)
   * @param <T> the record type
   * @param <I> the id type
   * @return the stream of the kept records
   * @throws IllegalArgumentException if {@code windowBatches} is below 1
   * @throws NullPointerException if an argument is null
   */
  public static <T, I> Stream<T> byId(Stream<T> stream, String name, Function<? super T, ? extends I> id,
      long windowBatches, StateFactory<MapState<I, Long>> seen) {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(seen, "seen");
    if (windowBatches < 1) {
      throw new IllegalArgumentException("windowBatches must be >= 1, was " + windowBatches);
    }
    Function<T, I> checked = record -> {
      I key = id.apply(record);
      if (key == null) {
        throw new InvalidRecordException("dedup '" + name + "': the id function returned null for record " + record,
            null, ErrorContext.NONE);
      }
      return key;
    };
    return stream.groupBy(checked).process(name, new SeenFactory<>(seen), new Keeper<T, I>(windowBatches))
        .toStream();
  }

  /**
   * One partition's id state and, when ids expire, its bucket state; begun, ended and aborted together.
   *
   * @param <I> the id type
   */
  private static final class Seen<I> implements State {
    final MapState<I, Long> ids;
    /** Null when ids are never deleted. */
    final RemovableMapState<BucketEntry, I> buckets;
    final int partition;

    Seen(MapState<I, Long> ids, RemovableMapState<BucketEntry, I> buckets, int partition) {
      this.ids = ids;
      this.buckets = buckets;
      this.partition = partition;
    }

    @Override
    public void begin(Epoch epoch) {
      ids.begin(epoch);
      if (buckets != null) {
        try {
          buckets.begin(epoch);
        } catch (RuntimeException e) {
          ids.abort();
          throw e;
        }
      }
    }

    @Override
    public void end() {
      try {
        if (buckets != null) {
          buckets.end();
        }
      } finally {
        ids.end();
      }
    }

    @Override
    public void abort() {
      try {
        if (buckets != null) {
          buckets.abort();
        }
      } finally {
        ids.abort();
      }
    }

    @Override
    public String toString() {
      return "Dedup.Seen[" + ids + (buckets == null ? "" : ", " + buckets) + "]";
    }
  }

  /** Makes the {@link Seen} state of a partition; declares what the id state's factory declares. */
  private static final class SeenFactory<I> implements StateFactory<Seen<I>> {
    private final StateFactory<MapState<I, Long>> seen;

    SeenFactory(StateFactory<MapState<I, Long>> seen) {
      this.seen = seen;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Seen<I> makeState(StateContext context) {
      if (seen instanceof RemovableStateFactory<?, ?> r) {
        RemovableStateFactory<I, Long> removable = (RemovableStateFactory<I, Long>) r;
        RemovableMapState<I, Long> ids = removable.makeState(context);
        if (ids.canRemove()) {
          RemovableMapState<BucketEntry, I> buckets = removable.buckets().makeState(context);
          if (buckets.canRemove()) {
            return new Seen<>(ids, buckets, context.partitionIndex());
          }
        }
        LOG.warn("dedup state '{}' partition {} of pipeline '{}': {} cannot delete, so ids that left the window are "
            + "kept", context.stateName(), context.partitionIndex(), context.pipeline(), ids);
        return new Seen<>(ids, null, context.partitionIndex());
      }
      LOG.warn("dedup state '{}' partition {} of pipeline '{}': {} is not a RemovableStateFactory, so ids that left "
          + "the window are kept", context.stateName(), context.partitionIndex(), context.pipeline(), seen.describe());
      return new Seen<>(seen.makeState(context), null, context.partitionIndex());
    }

    @Override
    public StateKind kind() {
      return seen.kind();
    }

    @Override
    public Optional<Class<? extends Staging>> staging() {
      return seen.staging();
    }

    /** True when ids expire: every batch expires the bucket that left the window, in every partition. */
    @Override
    public boolean takesEveryBatch() {
      return seen instanceof RemovableStateFactory || seen.takesEveryBatch();
    }

    @Override
    public String describe() {
      return seen.describe();
    }
  }

  /** Keeps the first record of each id not seen within the window; writes the kept ids once per partition. */
  private static final class Keeper<T, I> implements KeyedProcessFunction<Seen<I>, I, T, T> {
    private final long window;
    /** Per state partition in its batch: the stored first-delivery txids and the ids to mark as seen. */
    private final Map<Seen<I>, Loaded<I>> loaded = Collections.synchronizedMap(new IdentityHashMap<>());

    Keeper(long window) {
      this.window = window;
    }

    private record Loaded<I>(Map<I, Long> stored, Map<I, Long> kept) {
    }

    @Override
    public void begin(Seen<I> state, BatchAttempt batch, List<I> keys) {
      loaded.put(state, new Loaded<>(state.ids.multiGet(keys), new HashMap<>()));
    }

    @Override
    public void process(Seen<I> state, BatchAttempt batch, I key, List<T> records, Consumer<? super T> out) {
      Loaded<I> l = loaded.get(state);
      long txid = batch.txid();
      Long first = l.stored().get(key);
      // Kept: never seen, first delivered by this very batch (a replay), or seen longer ago than the window.
      if (first == null || first == txid || txid - first > window) {
        out.accept(records.get(0));
        l.kept().put(key, txid);
      }
    }

    @Override
    public void finish(Seen<I> state, BatchAttempt batch,
        java.util.function.BiConsumer<? super I, ? super T> out) {
      Loaded<I> l = loaded.remove(state);
      Map<I, Long> kept = l == null ? Map.of() : l.kept();
      if (!kept.isEmpty()) {
        state.ids.multiPut(kept);
        if (state.buckets != null) {
          Map<BucketEntry, I> bucket = new HashMap<>(kept.size() * 2);
          int i = 0;
          for (I id : kept.keySet()) {
            bucket.put(new BucketEntry(state.partition, batch.txid(), i++), id);
          }
          state.buckets.multiPut(bucket);
        }
      }
      if (state.buckets != null && batch.txid() - window - 1 >= 1) {
        expire(state, batch.txid() - window - 1, kept);
      }
    }

    /**
     * Deletes the ids of bucket {@code b} still first delivered at {@code b} and not kept again, then the bucket
     * (its entries from the last down, so a deletion failing midway leaves a prefix of it, found again by a replay).
     */
    private void expire(Seen<I> state, long b, Map<I, Long> kept) {
      List<BucketEntry> entries = new ArrayList<>();
      List<I> ids = new ArrayList<>();
      for (int from = 0; ; from += CHUNK) {
        List<BucketEntry> chunk = new ArrayList<>(CHUNK);
        for (int i = from; i < from + CHUNK; i++) {
          chunk.add(new BucketEntry(state.partition, b, i));
        }
        Map<BucketEntry, I> found = state.buckets.multiGet(chunk);
        if (found.isEmpty()) {
          break;
        }
        for (BucketEntry e : chunk) {
          I id = found.get(e);
          if (id != null) {
            entries.add(e);
            ids.add(id);
          }
        }
      }
      if (entries.isEmpty()) {
        return;
      }
      Map<I, Long> stored = state.ids.multiGet(ids);
      List<I> expired = new ArrayList<>(ids.size());
      for (I id : ids) {
        Long first = stored.get(id);
        if (first != null && first == b && !kept.containsKey(id)) {
          expired.add(id);
        }
      }
      if (!expired.isEmpty()) {
        ((RemovableMapState<I, Long>) state.ids).multiRemove(expired);
      }
      Collections.reverse(entries);
      state.buckets.multiRemove(entries);
    }
  }
}
