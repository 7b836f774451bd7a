package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A store transaction in <b>single-table fallback mode</b>: no multi-request YTsaurus transaction at all (nothing
 * sticky, so it works behind any load balancer). Reads are single-request {@code lookup_rows}/{@code select_rows} of
 * the latest committed data; the commit is <b>one</b> {@code insert_rows} into the shared table
 * ({@code atomicity=full}: all rows of all logical tables, deletes as tombstones), hence atomic across logical tables.
 *
 * <p><b>Weaker guarantees, by construction:</b>
 * <ul>
 *   <li>Conflicts are checked client-side just before the write (the written keys' {@code version} must not be newer
 *       than this transaction's begin timestamp). The check and the write are two requests: two commits racing
 *       inside that window can both succeed, the later one winning.</li>
 *   <li>Fencing is self-fencing: before writing, the lease's master transaction is pinged; a lease taken over
 *       earlier fails the commit with {@link io.epochal.errors.LeaseLostException}. A writer that pauses between the
 *       ping and the write can still write after losing the lease, because a single {@code insert_rows} cannot carry
 *       a prerequisite (unknown parameters are ignored).</li>
 * </ul>
 *
 * <p>Reads: the {@code row} column holds the values as checksummed bytes of the client's own encoding
 * ({@link SingleTableLayout}); each passes through {@link ReadHook#storedBytes} and is checked before it is decoded.
 * A row that fails the check or does not decode is {@link io.epochal.errors.StateCorruptedException}; an answer with
 * another row count than keys, or a row of another key than asked, fails the read; never a missing row.
 */
public final class SingleTableTransaction extends AbstractYtTransaction {
  private final YtHttpClient client;
  private final String proxy;
  private final String sharedTable;
  private final long startTimestamp;
  private final LeaseManager leases;
  private final LeaseManager.Handle leaseHandle;
  private final CommitHook hook;

  /**
   * Begins: takes the begin timestamp ({@code generate_timestamp}).
   *
   * @param owner the store
   * @param client the client
   * @param proxy the entry proxy (a balancer is fine)
   * @param sharedTable the shared table's path
   * @param leases the lease manager
   * @param leaseHandle the lease, or {@code null}
   * @param hook the commit hook
   * @param readHook the read hook
   * @param storeClosed tells whether the store was closed
   */
  public SingleTableTransaction(Object owner, YtHttpClient client, String proxy, String sharedTable,
      LeaseManager leases, LeaseManager.Handle leaseHandle, CommitHook hook, ReadHook readHook,
      BooleanSupplier storeClosed) {
    super(owner, leaseHandle == null ? null : leaseHandle.lease(), storeClosed, readHook);
    if (leaseHandle != null) {
      leaseHandle.checkNotLost();
    }
    this.client = client;
    this.proxy = proxy;
    this.sharedTable = sharedTable;
    this.leases = leases;
    this.leaseHandle = leaseHandle;
    this.hook = hook;
    this.startTimestamp = timestamp();
  }

  private long timestamp() {
    JsonNode answer = client.json(Call.setup(YtCommand.GENERATE_TIMESTAMP, YtJson.object(), proxy));
    JsonNode ts = answer.get("timestamp");
    if (ts == null || !ts.isIntegralNumber() || !ts.canConvertToLong() || ts.longValue() <= 0) {
      throw new StoreException("generate_timestamp on " + proxy + " answered " + YtRowCodec.abbreviate(answer)
          + " without a positive int64 timestamp; conflicts cannot be checked without one", null, false,
          ErrorContext.NONE);
    }
    return ts.longValue();
  }

  private List<JsonNode> lookupPhysical(String path, List<ObjectNode> keys) {
    List<JsonNode> out = new ArrayList<>(keys.size());
    for (int from = 0; from < keys.size(); from += YtTableStoreSupport.LOOKUP_CHUNK) {
      List<ObjectNode> chunk = keys.subList(from, Math.min(keys.size(), from + YtTableStoreSupport.LOOKUP_CHUNK));
      ObjectNode p = YtJson.object().put("path", sharedTable).put("keep_missing_rows", true)
          .put("dump_error_into_response", true);
      List<JsonNode> rows = client.rows(new Call(YtCommand.LOOKUP_ROWS, p, chunk, proxy, Phase.SETUP, null, false));
      if (rows.size() != chunk.size()) {
        throw YtTableStoreSupport.partialAnswer(path, sharedTable, rows.size(), chunk.size());
      }
      out.addAll(rows);
    }
    return out;
  }

  @Override
  protected List<Optional<Row>> doLookup(YtTable table, List<TableKey> keys) {
    List<ObjectNode> physical = new ArrayList<>(keys.size());
    for (TableKey k : keys) {
      physical.add(SingleTableLayout.physicalKey(k));
    }
    String path = table.schema().path();
    List<JsonNode> rows = lookupPhysical(path, physical);
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      JsonNode r = rows.get(i);
      Row row = YtTableStoreSupport.isMissing(r) ? null
          : SingleTableLayout.decode(table.schema(), r, keys.get(i), readHook());
      if (row != null && !row.key().equals(keys.get(i))) {
        throw YtTableStoreSupport.wrongKey(path, sharedTable, i, row.key(), keys.get(i));
      }
      out.add(Optional.ofNullable(row));
    }
    return out;
  }

  @Override
  protected List<JsonNode> scanAnswer(YtTable table) {
    String path = table.schema().path();
    boolean ascii = path.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
    String query = "* FROM [" + sharedTable + "]" + (ascii ? " WHERE state_id = \""
        + path.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : "");
    ObjectNode p = YtJson.object().put("query", query).put("output_row_limit", YtTableStoreSupport.SCAN_LIMIT)
        .put("input_row_limit", YtTableStoreSupport.SCAN_LIMIT).put("fail_on_incomplete_result", true)
        .put("dump_error_into_response", true);
    return client.rows(Call.setup(YtCommand.SELECT_ROWS, p, proxy));
  }

  @Override
  protected Row decodeScanned(YtTable table, JsonNode r) {
    JsonNode stateId = r == null ? null : r.get("state_id");
    if (stateId == null || !stateId.isTextual()) {
      throw YtRowCodec.corrupted(table.schema(), null, r, "a row of the shared table without a string state_id");
    }
    if (!YtJson.jsonToText(stateId.textValue()).equals(table.schema().path())) {
      return null;
    }
    return SingleTableLayout.decode(table.schema(), r, null, readHook());
  }

  @Override
  protected void doCommit(Map<YtTable, LinkedHashMap<TableKey, Row>> writes) {
    int total = 0;
    for (LinkedHashMap<TableKey, Row> w : writes.values()) {
      total += w.size();
    }
    if (total > YtTableStoreSupport.MAX_ROWS_PER_TRANSACTION) {
      throw new StoreException("the epoch writes " + total + " rows; one YTsaurus transaction takes at most "
          + YtTableStoreSupport.MAX_ROWS_PER_TRANSACTION + " (use smaller batches)");
    }
    if (leaseHandle != null) {
      leases.pingNow(leaseHandle);
    }
    if (total == 0) {
      return;
    }
    // best-effort conflict check: no written key may have been committed after this transaction began
    List<ObjectNode> keys = new ArrayList<>(total);
    List<YtTable> owners = new ArrayList<>(total);
    List<TableKey> logical = new ArrayList<>(total);
    for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> e : writes.entrySet()) {
      for (TableKey k : e.getValue().keySet()) {
        keys.add(SingleTableLayout.physicalKey(k));
        owners.add(e.getKey());
        logical.add(k);
      }
    }
    List<JsonNode> current = lookupPhysical(sharedTable, keys);
    for (int i = 0; i < current.size(); i++) {
      JsonNode r = current.get(i);
      String path = owners.get(i).schema().path();
      if (!YtTableStoreSupport.isMissing(r) && SingleTableLayout.version(r, path) > startTimestamp) {
        throw new CommitConflictException("single-table commit conflict: table " + path
            + " key " + logical.get(i).describeParts() + " was committed by another transaction (version "
            + SingleTableLayout.version(r, path) + ") after this one began (timestamp " + startTimestamp
            + "); nothing was applied", path, logical.get(i).describeParts());
      }
    }
    for (YtTable t : writes.keySet()) {
      hook.beforeTableWrite(t.schema().path());
    }
    long version = timestamp();
    List<ObjectNode> rows = new ArrayList<>(total);
    for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> e : writes.entrySet()) {
      for (Map.Entry<TableKey, Row> w : e.getValue().entrySet()) {
        ObjectNode row = SingleTableLayout.physicalKey(w.getKey());
        if (w.getValue() == null) {
          row.putNull("row");
          row.put("deleted", true);
        } else {
          row.put("row", YtJson.bytesToJson(SingleTableLayout.encodeValues(w.getValue())));
          row.put("deleted", false);
        }
        row.put("version", version);
        rows.add(row);
      }
    }
    ObjectNode p = YtJson.object().put("path", sharedTable).put("atomicity", "full");
    client.execute(new Call(YtCommand.INSERT_ROWS, p, rows, proxy, Phase.COMMIT, null, false));
  }

  @Override
  protected void doAbort() {
    // nothing was sent
  }

  /**
   * The transaction's start timestamp.
   *
   * @return the timestamp taken at begin
   */
  public long startTimestamp() {
    return startTimestamp;
  }

}
