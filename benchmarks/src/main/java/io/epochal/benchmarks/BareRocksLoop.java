package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The durable limit: the same micro-batches written straight to RocksDB, with the options of
 * {@code RocksDbTableStore} (WAL on, no fsync per commit, atomic flush, 8 MiB write buffers). Per batch of
 * {@code batch} sentences: read and split the lines, aggregate the words in a {@link HashMap}, one
 * {@code multiGetAsList} of the words' cells {@code (count, txid)}, then ONE {@link WriteBatch} with every new cell
 * and the committed txid. A cell already at the batch's txid is skipped (the transactional rule).
 */
public final class BareRocksLoop {
  private static final byte[] COMMITTED = "committed_txid".getBytes(StandardCharsets.UTF_8);

  private BareRocksLoop() {
  }

  /**
   * Counts the corpus in batches into a RocksDB database under the run's work directory, timing the section from
   * the first batch to the last write.
   *
   * @param ctx the run: corpus, work directory, {@code batch=} and the meter
   * @return the committed counts, read back from the database after the timed section
   * @throws Exception if RocksDB or the corpus fails (the child records it as the run's error)
   */
  public static Map<String, Long> run(RunContext ctx) throws Exception {
    RocksDB.loadLibrary();
    int batchSize = ctx.batch();
    String path = ctx.work().resolve("bare-rocksdb").toString();
    Files.createDirectories(ctx.work().resolve("bare-rocksdb"));
    try (DBOptions dbo = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
            .setAtomicFlush(true).setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
            .setMaxTotalWalSize(64L << 20).setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
        ColumnFamilyOptions cfo = new ColumnFamilyOptions().setWriteBufferSize(8L << 20);
        WriteOptions wo = new WriteOptions().setSync(false);
        ReadOptions ro = new ReadOptions()) {
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      List<ColumnFamilyDescriptor> cfs = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo),
          new ColumnFamilyDescriptor("counts".getBytes(StandardCharsets.UTF_8), cfo));
      try (RocksDB db = RocksDB.open(dbo, path, cfs, handles)) {
        ColumnFamilyHandle meta = handles.get(0);
        ColumnFamilyHandle counts = handles.get(1);
        ctx.meter().start();
        long txid = 0;
        try (BufferedReader in = Files.newBufferedReader(ctx.corpus(), StandardCharsets.UTF_8)) {
          HashMap<String, long[]> agg = new HashMap<>(1 << 16);
          boolean more = true;
          while (more) {
            agg.clear();
            int lines = 0;
            String line;
            while (lines < batchSize && (line = in.readLine()) != null) {
              lines++;
              for (String word : line.split(" ")) {
                long[] c = agg.get(word);
                if (c == null) {
                  agg.put(word, new long[] {1});
                } else {
                  c[0]++;
                }
              }
            }
            more = lines == batchSize;
            if (lines == 0) {
              break;
            }
            txid++;
            List<byte[]> keys = new ArrayList<>(agg.size());
            List<long[]> deltas = new ArrayList<>(agg.size());
            for (Map.Entry<String, long[]> e : agg.entrySet()) {
              keys.add(e.getKey().getBytes(StandardCharsets.UTF_8));
              deltas.add(e.getValue());
            }
            List<byte[]> stored = db.multiGetAsList(ro, Collections.nCopies(keys.size(), counts), keys);
            try (WriteBatch wb = new WriteBatch()) {
              for (int i = 0; i < keys.size(); i++) {
                byte[] old = stored.get(i);
                long base = 0;
                if (old != null) {
                  ByteBuffer b = ByteBuffer.wrap(old);
                  base = b.getLong();
                  if (b.getLong() == txid) {
                    continue; // already applied by this txid
                  }
                }
                wb.put(counts, keys.get(i),
                    ByteBuffer.allocate(16).putLong(base + deltas.get(i)[0]).putLong(txid).array());
              }
              wb.put(meta, COMMITTED, ByteBuffer.allocate(8).putLong(txid).array());
              db.write(wo, wb);
            }
          }
        }
        ctx.meter().stop();
        ctx.extra().setProperty("batches", Long.toString(txid));
        Map<String, Long> out = new HashMap<>();
        try (RocksIterator it = db.newIterator(counts)) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            out.put(new String(it.key(), StandardCharsets.UTF_8), ByteBuffer.wrap(it.value()).getLong());
          }
        }
        for (ColumnFamilyHandle h : handles) {
          h.close();
        }
        return out;
      }
    }
  }
}
