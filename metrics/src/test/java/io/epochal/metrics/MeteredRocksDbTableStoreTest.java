package io.epochal.metrics;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.TableStoreContract;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole {@link TableStoreContract} through {@link EpochalMetrics#metered} over RocksDB: reopening the same
 * directory, read faults on stored bytes and the pipeline cases all pass through the metered layer.
 */
class MeteredRocksDbTableStoreTest extends TableStoreContract {
  @TempDir
  Path dir;

  private final MeterRegistry registry = new SimpleMeterRegistry();

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return EpochalMetrics.metered(RocksDbTableStore.builder(dir).commitHook(commit).readHook(read).build(), registry,
        "rocksdb");
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }
}
