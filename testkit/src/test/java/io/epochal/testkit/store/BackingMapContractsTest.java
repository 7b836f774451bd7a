package io.epochal.testkit.store;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import io.epochal.codec.Codecs;
import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.RecordingBackingMap;
import io.epochal.store.table.BackingMapLayer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.FaultInjector;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;

/**
 * The {@link BackingMapContract} over every {@link IBackingMap} of batch-core and the testkit (they cannot run in
 * batch-core, which the testkit depends on): the in-memory map, the cache over it, the table-backed map of
 * {@code TableStates} under both commit protocols, the fault injector's wrapper (with no fault scheduled) and
 * batch-core's recording test double.
 */
class BackingMapContractsTest {

  /** String keys, Long cells (never 0: no empty value is configured anywhere, but keep clear of it). */
  abstract static class StringsToLongs extends BackingMapContract<String, Long> {
    @Override
    protected String key(int i) {
      return "key-" + i;
    }

    @Override
    protected Long cell(int i) {
      return 7L * i + 1;
    }
  }

  @Nested
  class InMemory extends StringsToLongs {
    @Override
    protected IBackingMap<String, Long> createMap() {
      return new InMemoryBackingMap<>("contract");
    }
  }

  @Nested
  class Cached extends StringsToLongs {
    @Override
    protected IBackingMap<String, Long> createMap() {
      return new CachedMap<>(new InMemoryBackingMap<>("contract"), 100);
    }
  }

  @Nested
  class Recording extends StringsToLongs {
    @Override
    protected IBackingMap<String, Long> createMap() {
      return new RecordingBackingMap<>();
    }
  }

  @Nested
  class FaultInjectorWrapper extends StringsToLongs {
    @Override
    protected IBackingMap<String, Long> createMap() {
      return new FaultInjector(List.of()).wrap(new InMemoryBackingMap<>("contract"));
    }
  }

  /** The table-backed map under a state of a pipeline's batch 1, on an in-memory table store. */
  abstract static class TableBacked extends StringsToLongs {
    abstract TableStore store();

    @Override
    @SuppressWarnings("unchecked")
    protected IBackingMap<String, Long> createMap() {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store());
      AtomicReference<IBackingMap<?, ?>> captured = new AtomicReference<>();
      BackingMapLayer capture = new BackingMapLayer() {
        @Override
        public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner) {
          captured.set(inner);
          return inner;
        }
      };
      checkpoints.load("contract");
      io.epochal.store.ManualEpochs epochs = new io.epochal.store.ManualEpochs(checkpoints, "contract");
      MapState<String, Long> state = TableStates.builder(KeyCodec.strings(), Codecs.longs())
          .layer(capture).nonTransactional().makeState(epochs.context("cells", 0, 1));
      // table states are written inside the engine's epoch; the contract runs in batch 1's
      state.begin(epochs.open(1));
      return (IBackingMap<String, Long>) captured.get();
    }
  }

  @Nested
  class TableBackedEpochProtocol extends TableBacked {
    @Override
    TableStore store() {
      return TableStores.inMemory();
    }
  }

  @Nested
  class TableBackedPerKeyProtocol extends TableBacked {
    @Override
    TableStore store() {
      return TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    }
  }
}
