package io.epochal.state;

import io.epochal.api.Evolving;
import java.util.Collection;

/**
 * An {@link IBackingMap} that can delete stored cells: the store side of {@link RemovableMapState}. A layer over
 * another map (a cache, fault injection) implements it by forwarding the removal and dropping what it keeps of the
 * removed keys.
 *
 * <p>Atomicity is per call at best, like {@link #multiPut}: a failing {@code multiRemove} may have deleted some of its
 * keys. A store that stages its writes in the epoch (a table store on the epoch protocol) stages the deletions too,
 * so they become durable with the epoch's commit and vanish with an aborted attempt. Thread-safety is the
 * implementation's, as for {@link IBackingMap} ({@code InMemoryBackingMap} and {@code CachedMap} are thread-safe).
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 * @since 0.7.0
 */
@Evolving
public interface RemovableBackingMap<K, C> extends IBackingMap<K, C> {

  /**
   * Deletes the stored cells of the given keys; absent keys are ignored.
   *
   * @param keys the keys whose cells to delete, none null
   * @throws NullPointerException if {@code keys} or one of its elements is null
   * @throws io.epochal.errors.StoreException if the store cannot be written; some cells may have been deleted
   */
  void multiRemove(Collection<? extends K> keys);
}
