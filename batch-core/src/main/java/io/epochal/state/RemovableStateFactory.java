package io.epochal.state;

import io.epochal.api.Evolving;

/**
 * A factory of map states that can delete keys ({@link RemovableMapState}) and that can keep, in the same store and
 * committed with the same batches, buckets of its keys: numbered lists of keys, one entry per
 * {@link BucketEntry} ({@link #buckets()}). {@link io.epochal.pipeline.Dedup#byId} indexes the ids it keeps by txid
 * this way, so that it deletes each id once it left the window at a cost proportional to what expires.
 *
 * <p>Implementations are immutable and thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.7.0
 */
@Evolving
public interface RemovableStateFactory<K, V> extends StateFactory<MapState<K, V>> {

  /**
   * Makes the state of one partition, which deletes keys when its store can ({@link RemovableMapState#canRemove()}).
   *
   * @param context the pipeline, the state's name, the partition and what the pipeline's epochs offer
   * @return a new removable state for that partition, with no epoch open
   */
  @Override
  RemovableMapState<K, V> makeState(StateContext context);

  /**
   * The factory of the bucket states of the states this factory makes: given the same {@link StateContext} (the state
   * name of the keys' state), each makes a removable state from bucket entries to keys, stored beside the keys' state
   * (its own key space or table) and needing the same staging; entries of different partitions never collide.
   *
   * @return the factory of bucket states
   */
  StateFactory<RemovableMapState<BucketEntry, K>> buckets();
}
