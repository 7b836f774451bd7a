package io.epochal.store.rocksdb;

import java.util.List;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native RocksDB option objects of one open store: the database options (atomic flush, point-in-time WAL
 * recovery, no {@code create_if_missing}), the column family options, the write options of commits (fsync per the
 * {@link SyncPolicy}) and of metadata (always fsynced), the checksum-verifying read options and the statistics.
 * Released by {@link #close()}, once, when the store closes; until then shared read-only by every thread.
 */
final class NativeOptions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  final Statistics statistics;
  final DBOptions dbOptions;
  final ColumnFamilyOptions cfOptions;
  /** Commits: synced per the {@link SyncPolicy}. */
  final WriteOptions writeOptions;
  /** Metadata (schemas, leases, the database id): always synced. */
  final WriteOptions metaWriteOptions;
  final ReadOptions readOptions;
  /** Null when read-only. */
  private final AbstractEventListener flushListener;

  /** @param flushListener the listener to register on the database, or null */
  NativeOptions(SyncPolicy sync, AbstractEventListener flushListener) {
    this.flushListener = flushListener;
    Statistics stats = null;
    DBOptions dbo = null;
    ColumnFamilyOptions cfo = null;
    WriteOptions wo = null;
    WriteOptions mwo = null;
    ReadOptions ro = null;
    boolean ok = false;
    try {
      stats = new Statistics();
      stats.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
      dbo = new DBOptions()
          .setCreateIfMissing(false)
          .setCreateMissingColumnFamilies(false)
          .setAtomicFlush(true)
          .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
          .setMaxTotalWalSize(64L << 20)
          .setKeepLogFileNum(3)
          .setMaxLogFileSize(1L << 20)
          .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
          .setStatistics(stats);
      if (flushListener != null) {
        dbo.setListeners(List.of(flushListener));
      }
      cfo = new ColumnFamilyOptions().setWriteBufferSize(8L << 20);
      wo = new WriteOptions().setSync(sync == SyncPolicy.FSYNC);
      mwo = new WriteOptions().setSync(true);
      ro = new ReadOptions().setVerifyChecksums(true);
      ok = true;
    } finally {
      if (!ok) {
        closeQuietly(ro, mwo, wo, cfo, dbo, flushListener, stats);
      }
    }
    this.statistics = stats;
    this.dbOptions = dbo;
    this.cfOptions = cfo;
    this.writeOptions = wo;
    this.metaWriteOptions = mwo;
    this.readOptions = ro;
  }

  /** Releases every option object (quietly). */
  @Override
  public void close() {
    closeQuietly(readOptions, metaWriteOptions, writeOptions, cfOptions, dbOptions, flushListener, statistics);
  }

  static void closeQuietly(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      if (r != null) {
        try {
          r.close();
        } catch (Exception e) {
          LOG.debug("closing {} failed", r, e);
        }
      }
    }
  }
}
