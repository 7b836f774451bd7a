package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

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
 * are duplicates of the first of them. What is not done: ids that left the window are not deleted from the state (it
 * grows with the number of distinct ids; an expired id's row is reused when the id comes again).
 *
 * <p>Stateless and thread-safe: static methods only; the processor it installs is thread-safe.
 *
 * @since 0.6.0
 */
@Stable
public final class Dedup {
  private Dedup() {
  }

  /**
   * The records of {@code stream} without duplicates by {@code id} within {@code windowBatches} batches; the records
   * kept keep their order per id (the first of each), not across ids (they are grouped by id first).
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
    return stream.groupBy(checked).process(name, seen, new Keeper<T, I>(windowBatches)).toStream();
  }

  /** Keeps the first record of each id not seen within the window; writes the kept ids once per partition. */
  private static final class Keeper<T, I> implements KeyedProcessFunction<MapState<I, Long>, I, T, T> {
    private final long window;
    /** Per state partition in its batch: the stored first-delivery txids and the ids to mark as seen. */
    private final Map<MapState<I, Long>, Loaded<I>> loaded = Collections.synchronizedMap(new IdentityHashMap<>());

    Keeper(long window) {
      this.window = window;
    }

    private record Loaded<I>(Map<I, Long> stored, Map<I, Long> kept) {
    }

    @Override
    public void begin(MapState<I, Long> state, BatchAttempt batch, List<I> keys) {
      loaded.put(state, new Loaded<>(state.multiGet(keys), new HashMap<>()));
    }

    @Override
    public void process(MapState<I, Long> state, BatchAttempt batch, I key, List<T> records,
        Consumer<? super T> out) {
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
    public void finish(MapState<I, Long> state, BatchAttempt batch,
        java.util.function.BiConsumer<? super I, ? super T> out) {
      Loaded<I> l = loaded.remove(state);
      if (l != null && !l.kept().isEmpty()) {
        state.multiPut(l.kept());
      }
    }
  }
}
