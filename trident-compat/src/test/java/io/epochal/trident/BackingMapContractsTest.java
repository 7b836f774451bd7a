package io.epochal.trident;

import io.epochal.codec.Codecs;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.store.BackingMapContract;
import java.util.List;
import java.util.Optional;
import org.apache.storm.trident.testing.MemoryBackingMap;
import org.junit.jupiter.api.Nested;

/**
 * The {@link BackingMapContract} over the adapters' backing maps: {@link TridentBackingMap} (a Trident
 * {@code IBackingMap}, Storm's {@code MemoryBackingMap}, with plain, transactional and opaque cells),
 * {@link PartitionEpoch} (one table of an Epochal table store, as {@code stormState} uses it, a batch per put), {@link EncodedBackingMap}
 * (cells as Trident's JSON bytes) and the tests' {@link FaultyBackingMap} (with faults off).
 */
class BackingMapContractsTest {

  /** Trident's positional keys. */
  abstract static class TridentKeys<C> extends BackingMapContract<List<Object>, C> {
    @Override
    protected List<Object> key(int i) {
      return List.of("key-" + i, (long) i);
    }
  }

  @Nested
  class TridentPlainCells extends TridentKeys<Object> {
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    protected IBackingMap<List<Object>, Object> createMap() {
      return new TridentBackingMap<>((org.apache.storm.trident.state.map.IBackingMap) new MemoryBackingMap(),
          TridentBackingMap.PLAIN, "plain");
    }

    @Override
    protected Object cell(int i) {
      return 7L * i + 1;
    }
  }

  @Nested
  class TridentTransactionalCells extends TridentKeys<TransactionalValue<Object>> {
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    protected IBackingMap<List<Object>, TransactionalValue<Object>> createMap() {
      return new TridentBackingMap<>((org.apache.storm.trident.state.map.IBackingMap) new MemoryBackingMap(),
          TridentBackingMap.TRANSACTIONAL, "transactional");
    }

    @Override
    protected TransactionalValue<Object> cell(int i) {
      return new TransactionalValue<>("v" + i, i + 1);
    }
  }

  @Nested
  class TridentOpaqueCells extends TridentKeys<OpaqueValue<Object>> {
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    protected IBackingMap<List<Object>, OpaqueValue<Object>> createMap() {
      return new TridentBackingMap<>((org.apache.storm.trident.state.map.IBackingMap) new MemoryBackingMap(),
          TridentBackingMap.OPAQUE, "opaque");
    }

    @Override
    protected OpaqueValue<Object> cell(int i) {
      return new OpaqueValue<>(7L * i + 1, i % 2 == 0 ? Optional.empty() : Optional.of((Object) (long) i), i + 1);
    }
  }

  @Nested
  class TableCellsTransactional extends TridentKeys<TransactionalValue<Long>> {
    @Override
    protected IBackingMap<List<Object>, TransactionalValue<Long>> createMap() {
      return new BatchPerPut<>(TableStores.inMemory(), "storm/contract",
          new TransactionalTableLayout<>(Codecs.longs(), v -> false), Codecs.longs());
    }

    @Override
    protected TransactionalValue<Long> cell(int i) {
      return new TransactionalValue<>(7L * i + 1, i + 1);
    }
  }

  @Nested
  class TableCellsOpaque extends TridentKeys<OpaqueValue<Long>> {
    @Override
    protected IBackingMap<List<Object>, OpaqueValue<Long>> createMap() {
      return new BatchPerPut<>(TableStores.inMemory(), "storm/contract",
          new OpaqueTableLayout<>(Codecs.longs(), v -> false), Codecs.longs());
    }

    @Override
    protected OpaqueValue<Long> cell(int i) {
      return new OpaqueValue<>(7L * i + 1, i % 2 == 0 ? Optional.empty() : Optional.of((long) i), i + 1);
    }
  }

  @Nested
  class EncodedJsonCells extends TridentKeys<TransactionalValue<String>> {
    @Override
    protected IBackingMap<List<Object>, TransactionalValue<String>> createMap() {
      return new EncodedBackingMap<>(new InMemoryBackingMap<List<Object>, byte[]>("bytes"),
          EpochalTrident.<String>transactionalJsonCodec());
    }

    @Override
    protected TransactionalValue<String> cell(int i) {
      return new TransactionalValue<>("v" + i, i + 1);
    }
  }

  @Nested
  class FaultyWithoutFaults extends TridentKeys<Long> {
    @Override
    protected IBackingMap<List<Object>, Long> createMap() {
      return new FaultyBackingMap<>("faulty", 0);
    }

    @Override
    protected Long cell(int i) {
      return 7L * i + 1;
    }
  }
}
