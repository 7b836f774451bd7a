package io.epochal.store.table.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.TableClaimedTwiceException;
import io.epochal.store.Checkpoint;
import io.epochal.store.OutboxEntry;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine room of {@code TableCheckpointStore}: the checkpoint table, one {@link PipelineEpoch} (lease and epoch
 * buffer) per pipeline, and the table claims. Thread-safe. Internal.
 */
public final class Epochs {
  private static final Logger LOG = LoggerFactory.getLogger(Epochs.class);
  /** The name of the checkpoint table, after the table prefix. */
  public static final String CHECKPOINT_TABLE = "__epochal_checkpoints";
  static final String PIPELINE = "pipeline";
  static final String COMMITTED_TXID = "committed_txid";
  static final String METADATA = "metadata";
  static final String PENDING = "pending";
  /** Format 1: pending metadata only (read, never written). */
  private static final byte PENDING_FORMAT_V1 = 1;
  /** Format 2: the attempt reservation (ceiling, txid window), then the pending metadata as in format 1. */
  private static final byte PENDING_FORMAT_V2 = 2;
  /** Format 3: format 2, then the outbox of the committed batch (sink outputs until published). */
  private static final byte PENDING_FORMAT = 3;

  private final TableStore store;
  private final CommitProtocol protocol;
  private final String owner;
  private final String tablePrefix;
  private final Table checkpoints;
  private final ConcurrentHashMap<String, PipelineEpoch> pipelines = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, String> claims = new ConcurrentHashMap<>();
  /**
   * Per pipeline, the checkpoint row this worker last committed under the pipeline's lease, when the store fences
   * (then only the lease holder can change the row, and a stale holder's commit fails): the base of the next leased
   * write, which saves the row's lookup in each transaction. Dropped on any failure, so the next write reads the row.
   */
  private final ConcurrentHashMap<String, Checkpoint> written = new ConcurrentHashMap<>();
  private final boolean fenced;

  /**
   * @param store the table store
   * @param protocol the protocol in force (checked against the store's capabilities by the caller)
   * @param owner the lease owner name of this worker
   * @param tablePrefix the prefix of every table this checkpoint store names
   */
  public Epochs(TableStore store, CommitProtocol protocol, String owner, String tablePrefix) {
    this.store = Objects.requireNonNull(store, "store");
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.owner = Objects.requireNonNull(owner, "owner");
    this.tablePrefix = Objects.requireNonNull(tablePrefix, "tablePrefix");
    this.checkpoints = store.openTable(checkpointSchema(tablePrefix + CHECKPOINT_TABLE));
    this.fenced = store.capabilities().fencing();
    LOG.info("checkpoints of {} in table {} use the {} commit protocol (store capabilities: {})",
        owner, checkpoints.path(), protocol, store.capabilities());
  }

  /**
   * The schema of the checkpoint table {@code (hash, pipeline) -> committed_txid, metadata, pending}. The
   * {@code pending} column holds the pending metadata and the attempt reservation (format 2; format 1, written by
   * earlier versions, holds the pending metadata only and reads as no reservation).
   *
   * @param path the checkpoint table's path: the table prefix followed by {@link #CHECKPOINT_TABLE}
   * @return the schema, with attribute {@code epochal.layout=checkpoint:v1}
   */
  public static TableSchema checkpointSchema(String path) {
    return TableSchema.builder(path).key(PIPELINE, ColumnType.STRING)
        .requiredValue(COMMITTED_TXID, ColumnType.INT64).requiredValue(METADATA, ColumnType.BYTES)
        .requiredValue(PENDING, ColumnType.BYTES).attribute("epochal.layout", "checkpoint:v1").build();
  }

  /**
   * Returns the table store holding the checkpoint table and the states' tables.
   *
   * @return the table store
   */
  public TableStore store() {
    return store;
  }

  /**
   * Returns the protocol chosen when the checkpoint store was built.
   *
   * @return the protocol in force for every pipeline
   */
  public CommitProtocol protocol() {
    return protocol;
  }

  /**
   * Returns the name this worker takes leases under.
   *
   * @return the lease owner name
   */
  public String owner() {
    return owner;
  }

  /**
   * Returns the prefix of every table this checkpoint store names.
   *
   * @return the table prefix, {@code ""} when none was set
   */
  public String tablePrefix() {
    return tablePrefix;
  }

  /**
   * Returns the checkpoint table, opened (created if missing) by the constructor.
   *
   * @return the checkpoint table
   */
  public Table checkpointTable() {
    return checkpoints;
  }

  /**
   * The epoch state of {@code pipeline}; the first call takes the pipeline's lease over.
   *
   * @param pipeline the pipeline name
   * @return the pipeline's epoch state, the same object on every call
   * @throws NullPointerException if {@code pipeline} is null
   */
  public PipelineEpoch pipeline(String pipeline) {
    Objects.requireNonNull(pipeline, "pipeline");
    return pipelines.computeIfAbsent(pipeline, p -> {
      PipelineEpoch e = new PipelineEpoch(this, p, store.acquireLease("pipeline:" + p, owner));
      LOG.info("pipeline '{}' on {}: {} commit protocol, {}", p, store.describe(), protocol, e.lease());
      return e;
    });
  }

  /**
   * What the epochs of {@code pipeline} offer before any batch, without taking its lease.
   *
   * @param pipeline the pipeline name
   * @return a staging that reads committed rows and refuses writes
   */
  public EpochBuffer staging(String pipeline) {
    return new PipelineStaging(this, pipeline);
  }

  /**
   * Claims table {@code path} for writing by {@code claimant}; claiming again with the same claimant is a no-op.
   *
   * @param path the path of the table to claim
   * @param claimant who writes the table, in words the error of a second claimant shows
   * @throws TableClaimedTwiceException if another claimant holds it
   */
  public void claim(String path, String claimant) {
    String first = claims.putIfAbsent(path, claimant);
    if (first != null && !first.equals(claimant)) {
      throw new TableClaimedTwiceException(path, first, claimant);
    }
  }

  // ------------------------------------------------------------------ checkpoint rows

  /**
   * Reads the committed checkpoint of {@code pipeline}, taking its lease over on first use and forgetting the row
   * this worker last wrote (the next write reads it again).
   *
   * @param pipeline the pipeline name
   * @return the checkpoint, {@link Checkpoint#EMPTY} if the pipeline has no row
   * @throws StateCorruptedException if the row cannot be decoded
   */
  public Checkpoint load(String pipeline) {
    pipeline(pipeline);
    forget(pipeline);
    try (StoreTransaction tx = store.begin()) {
      return read(tx, pipeline);
    }
  }

  Checkpoint read(StoreTransaction tx, String pipeline) {
    TableKey key = checkpoints.schema().key(pipeline);
    Optional<Row> row = tx.lookup(checkpoints, List.of(key)).get(0);
    if (row.isEmpty()) {
      return Checkpoint.EMPTY;
    }
    return decodeRow(row.get());
  }

  /**
   * Decodes a row of a checkpoint table (for {@code TableCheckpointStore} and inspection tools).
   *
   * @param r a row of a table with {@link #checkpointSchema} (its schema is not checked here)
   * @return the checkpoint the row holds
   * @throws StateCorruptedException if the row cannot be decoded, naming table, pipeline and committed txid
   */
  public static Checkpoint decodeRow(Row r) {
    long committed = r.getLong(COMMITTED_TXID);
    try {
      return decode(committed, r.getBytes(METADATA), r.getBytes(PENDING));
    } catch (IOException | RuntimeException e) {
      throw new StateCorruptedException(r.schema().path(), r.key().get(PIPELINE), "committed txid "
          + committed, OptionalLong.of(committed), e);
    }
  }

  /**
   * The base of a write of {@code pipeline}'s checkpoint row in {@code tx}, a transaction under the pipeline's lease:
   * what this worker last committed if the store fences (see {@link #written}), else the row as {@code tx} reads it.
   */
  Checkpoint base(StoreTransaction tx, String pipeline) {
    Checkpoint known = fenced ? written.get(pipeline) : null;
    return known != null ? known : read(tx, pipeline);
  }

  /**
   * Commits {@code tx}, which writes {@code next} as {@code pipeline}'s checkpoint row, and remembers {@code next} as
   * the base of the next write; forgets any base if the commit fails (its outcome may be unknown).
   */
  void commitCheckpoint(StoreTransaction tx, String pipeline, Checkpoint next) {
    boolean done = false;
    try {
      tx.upsert(checkpoints, row(pipeline, next));
      tx.commit();
      done = true;
    } finally {
      if (done && fenced) {
        written.put(pipeline, next);
      } else {
        written.remove(pipeline);
      }
    }
  }

  /** Forgets {@code pipeline}'s known checkpoint row: a write failed before its commit. */
  void forget(String pipeline) {
    written.remove(pipeline);
  }

  Row row(String pipeline, Checkpoint checkpoint) {
    return Row.builder(checkpoints.schema().key(pipeline))
        .set(COMMITTED_TXID, checkpoint.committedTxid())
        .set(METADATA, checkpoint.committedMetadata())
        .set(PENDING, encodePending(checkpoint))
        .build();
  }

  /**
   * Records the metadata of started batch {@code txid} in {@code pipeline}'s checkpoint row, in one store transaction
   * under its lease.
   *
   * @param pipeline the pipeline name
   * @param txid the started batch, above the committed txid
   * @param metadata the spout metadata of the batch, to replay it identically after a crash
   * @throws EpochalException if {@code txid} is already committed
   */
  public void recordPending(String pipeline, long txid, byte[] metadata) {
    Objects.requireNonNull(metadata, "metadata");
    PipelineEpoch epoch = pipeline(pipeline);
    try (StoreTransaction tx = store.begin(epoch.lease())) {
      Checkpoint base = base(tx, pipeline);
      if (txid <= base.committedTxid()) {
        forget(pipeline);
        throw new EpochalException("pipeline " + pipeline + ": cannot record pending txid " + txid
            + ", txid " + base.committedTxid() + " is already committed", null, false,
            ErrorContext.of(checkpoints.path(), pipeline).withPipeline(pipeline).withTxid(txid));
      }
      commitCheckpoint(tx, pipeline, base.withPending(txid, metadata));
    } catch (RuntimeException e) {
      forget(pipeline);
      throw e;
    }
  }

  /**
   * Raises the attempt reservation of {@code pipeline}, in one store transaction under its lease; writes nothing if
   * the reservation already covers the values.
   *
   * @param pipeline the pipeline name
   * @param attemptCeiling the attempt number the engine may number emissions up to
   * @param txidWindow how many txids above the committed one may be in flight
   */
  public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
    PipelineEpoch epoch = pipeline(pipeline);
    try (StoreTransaction tx = store.begin(epoch.lease())) {
      Checkpoint base = base(tx, pipeline);
      Checkpoint next = base.withReservation(attemptCeiling, txidWindow);
      if (next.equals(base)) {
        return;
      }
      commitCheckpoint(tx, pipeline, next);
    } catch (RuntimeException e) {
      forget(pipeline);
      throw e;
    }
  }

  /**
   * Commits batch {@code txid} of {@code pipeline}: its checkpoint row, and under the epoch protocol every buffered
   * state row of the epoch, in one store transaction under the pipeline's lease.
   *
   * @param pipeline the pipeline name
   * @param txid the batch, the committed txid plus one
   * @param metadata the batch's spout metadata, kept as the committed metadata
   * @param outbox the batch's sink outputs, kept in the row until the next commit; may be empty
   */
  public void commit(String pipeline, long txid, byte[] metadata, List<OutboxEntry> outbox) {
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(outbox, "outbox");
    pipeline(pipeline).commit(txid, metadata, outbox);
  }

  /**
   * Drops the epoch buffer of {@code pipeline}'s failed attempt of batch {@code txid}; nothing if the pipeline has
   * no epoch state yet.
   *
   * @param pipeline the pipeline name
   * @param txid the batch whose attempt failed
   */
  public void abort(String pipeline, long txid) {
    PipelineEpoch epoch = pipelines.get(Objects.requireNonNull(pipeline, "pipeline"));
    if (epoch != null) {
      epoch.abort(txid);
    }
  }

  /** Builds the checkpoint of batch {@code txid} on {@code base}, checking the order. */
  Checkpoint next(String pipeline, Checkpoint base, long txid, byte[] metadata, List<OutboxEntry> outbox) {
    if (txid != base.committedTxid() + 1) {
      throw new EpochalException("pipeline " + pipeline + ": commit of txid " + txid
          + " out of order, last committed txid is " + base.committedTxid(), null, false,
          ErrorContext.of(checkpoints.path(), pipeline).withPipeline(pipeline).withTxid(txid));
    }
    return base.committed(txid, metadata, outbox);
  }

  static byte[] encodePending(Checkpoint checkpoint) {
    SortedMap<Long, byte[]> pending = checkpoint.pendingMetadata();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(PENDING_FORMAT);
      out.writeLong(checkpoint.attemptCeiling());
      out.writeLong(checkpoint.txidWindow());
      out.writeInt(pending.size());
      for (Map.Entry<Long, byte[]> e : pending.entrySet()) {
        out.writeLong(e.getKey());
        out.writeInt(e.getValue().length);
        out.write(e.getValue());
      }
      out.writeInt(checkpoint.outbox().size());
      for (OutboxEntry e : checkpoint.outbox()) {
        out.writeUTF(e.sink());
        out.writeLong(e.txid());
        out.writeInt(e.partition());
        byte[] payload = e.payload();
        out.writeInt(payload.length);
        out.write(payload);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  static Checkpoint decode(long committed, byte[] metadata, byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte format = in.readByte();
    long ceiling = 0;
    long window = 0;
    if (format == PENDING_FORMAT || format == PENDING_FORMAT_V2) {
      ceiling = in.readLong();
      window = in.readLong();
      if (ceiling < 0 || window < 0) {
        throw new IOException("bad attempt reservation: ceiling " + ceiling + ", txid window " + window);
      }
    } else if (format != PENDING_FORMAT_V1) {
      throw new IOException("unknown pending-metadata format " + format);
    }
    SortedMap<Long, byte[]> pending = decodePending(in, bytes.length);
    List<OutboxEntry> outbox = format == PENDING_FORMAT ? decodeOutbox(in, bytes.length) : List.of();
    if (in.available() != 0) {
      throw new IOException(in.available() + " trailing bytes after the pending metadata");
    }
    try {
      return new Checkpoint(committed, metadata, pending, ceiling, window, outbox);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static List<OutboxEntry> decodeOutbox(DataInputStream in, int size) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > size) {
      throw new IOException("bad outbox entry count " + n);
    }
    List<OutboxEntry> outbox = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String sink = in.readUTF();
      long txid = in.readLong();
      int partition = in.readInt();
      int len = in.readInt();
      if (len < 0 || len > in.available() || txid < 1 || partition < 0) {
        throw new IOException("bad outbox entry " + i + " (sink '" + sink + "', txid " + txid + ", partition "
            + partition + ", " + len + " bytes)");
      }
      byte[] payload = new byte[len];
      in.readFully(payload);
      outbox.add(new OutboxEntry(sink, txid, partition, payload));
    }
    return outbox;
  }

  private static SortedMap<Long, byte[]> decodePending(DataInputStream in, int size) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > size) {
      throw new IOException("bad pending-metadata count " + n);
    }
    TreeMap<Long, byte[]> pending = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      long txid = in.readLong();
      int len = in.readInt();
      if (len < 0 || len > in.available()) {
        throw new IOException("bad pending-metadata length " + len + " for txid " + txid);
      }
      byte[] meta = new byte[len];
      in.readFully(meta);
      pending.put(txid, meta);
    }
    return pending;
  }
}
