package io.epochal.trident;

import io.epochal.state.IBackingMap;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.CellLayout;
import io.epochal.codec.Codec;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A {@link PartitionEpoch} of partition 0 of 1 as a plain backing map for the backing-map contract: each
 * {@code multiPut} is one batch (its own txid, begun and committed), reads outside a batch see what was committed.
 */
final class BatchPerPut<C> implements IBackingMap<List<Object>, C> {
  private final PartitionEpoch<C> epoch;
  private long txid;

  BatchPerPut(TableStore store, String path, CellLayout<C> layout, Codec<?> values) {
    this.epoch = new PartitionEpoch<>(store,
        store.openTable(PartitionEpoch.cellSchema(path, JsonKeyCodec.INSTANCE, layout, values)),
        JsonKeyCodec.INSTANCE, layout, 0, 1, "contract", 0);
  }

  @Override
  public Map<List<Object>, C> multiGet(Collection<? extends List<Object>> keys) {
    return epoch.multiGet(keys);
  }

  @Override
  public void multiPut(Map<List<Object>, C> cells) {
    long t = ++txid;
    epoch.beginBatch(t);
    epoch.multiPut(cells);
    epoch.commitBatch(t);
  }
}
