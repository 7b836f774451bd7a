package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Lookups of the latest committed rows without a transaction, for {@code TableStore.lookup} in pinned mode (the epoch
 * buffers' reads): each chunk is one {@code lookup_rows} without {@code transaction_id}, which YTsaurus answers at its
 * latest committed timestamp, sent to the next proxy of the pool and retried as a single-request read. It saves the
 * {@code start_transaction} and {@code abort_transaction} a read transaction costs. Holds nothing between calls;
 * scans and writes are refused (use a transaction). Thread-safe.
 */
public final class LatestReads extends AbstractYtTransaction {
  private final YtHttpClient client;
  private final ProxyPool pool;

  /**
   * Makes the reader of latest committed rows.
   *
   * @param owner the store (tables of other stores are refused)
   * @param client the HTTP client
   * @param pool the proxies
   * @param readHook called before every lookup
   * @param storeClosed tells whether the store was closed
   */
  public LatestReads(Object owner, YtHttpClient client, ProxyPool pool, ReadHook readHook,
      BooleanSupplier storeClosed) {
    super(owner, null, storeClosed, readHook);
    this.client = client;
    this.pool = pool;
  }

  @Override
  protected List<Optional<Row>> doLookup(YtTable table, List<TableKey> uniqueKeys) {
    return PinnedTransaction.lookupRows(client, table, uniqueKeys,
        (params, input) -> new Call(YtCommand.LOOKUP_ROWS, params, input, pool.next(), Phase.SETUP, null, false));
  }

  @Override
  protected List<JsonNode> scanAnswer(YtTable table) {
    throw new UnsupportedOperationException("latest-row reads only look keys up; scan in a transaction");
  }

  @Override
  protected Row decodeScanned(YtTable table, JsonNode json) {
    throw new UnsupportedOperationException("latest-row reads only look keys up; scan in a transaction");
  }

  @Override
  protected void doCommit(Map<YtTable, LinkedHashMap<TableKey, Row>> writes) {
    throw new UnsupportedOperationException("latest-row reads write nothing");
  }

  @Override
  protected void doAbort() {
  }
}
