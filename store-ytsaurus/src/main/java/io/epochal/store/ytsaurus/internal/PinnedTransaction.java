package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.ytsaurus.YtConsumerOffsetMismatchException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store transaction in <b>pinned mode</b>: one YTsaurus tablet transaction, every call of which goes to the one
 * heavy proxy that started it (its sticky pool holds the transaction; research note §2.1–2.4).
 *
 * <p>Sequence: {@code start_transaction(type=tablet)} at begin (so conflicts are judged from this start timestamp);
 * lookups and scans with {@code transaction_id} (snapshot at the start, not seeing own writes); at commit, per table in
 * first-written order, the commit hook, then one {@code insert_rows} (upserts) and one {@code delete_rows} (deletes);
 * then, if the transaction is the epoch commit of a pipeline whose queue spout staged consumer advances
 * ({@link ConsumerAdvances}), one {@code advance_queue_consumer} per advanced partition; finally
 * {@code commit_transaction} with {@code prerequisite_transaction_ids = [lease master transaction]}. Every
 * answer's {@code X-YT-Proxy} must equal the one that answered {@code start_transaction}.
 *
 * <p>Outcomes: 1700 → {@link CommitConflictException} naming table and keys; 1000 → {@link LeaseLostException};
 * 11000, an unreachable proxy or an answer from another proxy → {@link YtTransactionLostException}; each means the
 * epoch did not commit and is replayed. A commit whose answer was lost →
 * {@link io.epochal.store.ytsaurus.YtCommitOutcomeUnknownException}. Writes to a table are buffered client-side until
 * commit; the proxy buffers them again until {@code commit_transaction}, so a lost proxy writes nothing.
 *
 * <p>Reads: YTsaurus keeps the rows as typed columns and answers them as JSON rows, which {@link YtRowCodec} decodes;
 * there are no stored bytes of the client's own, so {@link ReadHook#storedBytes} is not called. An answer that is no
 * tabular JSON, has another row count than keys, or holds a row that does not fit the schema fails the read (see
 * {@link YtTableStoreSupport#matchLookup}); lookups and scans ask for {@code dump_error_into_response}, so an error
 * that struck after the rows began to stream shows in the body instead of being lost in an HTTP trailer.
 */
public final class PinnedTransaction extends AbstractYtTransaction {
  private static final Logger LOG = LoggerFactory.getLogger(PinnedTransaction.class);

  private final YtHttpClient client;
  private final String proxy;
  private final String servedBy;
  private final String transactionId;
  private final LeaseManager.Handle leaseHandle;
  private final CommitHook hook;
  private final ConsumerAdvances consumerAdvances;

  private PinnedTransaction(Object owner, Lease lease, BooleanSupplier storeClosed, ReadHook readHook,
      YtHttpClient client, String proxy, String servedBy, String transactionId, LeaseManager.Handle leaseHandle,
      CommitHook hook, ConsumerAdvances consumerAdvances) {
    super(owner, lease, storeClosed, readHook);
    this.client = client;
    this.proxy = proxy;
    this.servedBy = servedBy;
    this.transactionId = transactionId;
    this.leaseHandle = leaseHandle;
    this.hook = hook;
    this.consumerAdvances = consumerAdvances;
  }

  /**
   * Starts the tablet transaction on a heavy proxy from the pool (trying the next one if a proxy is unreachable).
   *
   * @param owner the store
   * @param client the client
   * @param pool the heavy proxies
   * @param timeoutMs the tablet transaction timeout (the sticky lease; renewed by every call)
   * @param leaseHandle the lease, or {@code null}
   * @param hook the commit hook
   * @param readHook the read hook
   * @param storeClosed tells whether the store was closed
   * @param consumerAdvances the queue-consumer advances staged for epoch commits on this store
   * @return the open transaction
   */
  public static PinnedTransaction begin(Object owner, YtHttpClient client, ProxyPool pool, long timeoutMs,
      LeaseManager.Handle leaseHandle, CommitHook hook, ReadHook readHook, BooleanSupplier storeClosed,
      ConsumerAdvances consumerAdvances) {
    if (leaseHandle != null) {
      leaseHandle.checkNotLost();
    }
    ObjectNode params = YtJson.object().put("type", "tablet").put("timeout", timeoutMs).put("atomicity", "full")
        .put("sticky", true);
    YtException last = null;
    int tries = Math.max(1, pool.size());
    for (int i = 0; i < tries; i++) {
      String proxy = pool.next();
      try {
        Call start = Call.setup(YtCommand.START_TRANSACTION, params, proxy);
        YtHttpClient.Response r = client.execute(start);
        JsonNode answer = client.parse(start, r);
        JsonNode idNode = answer.path("transaction_id");
        String id = idNode.isTextual() && !idNode.asText().isEmpty() ? idNode.asText() : null;
        if (id == null) {
          throw new StoreException("start_transaction on " + proxy + " answered without transaction_id: "
              + answer);
        }
        LOG.debug("tablet transaction {} pinned to {} (X-YT-Proxy {})", id, proxy, r.servedBy());
        return new PinnedTransaction(owner, leaseHandle == null ? null : leaseHandle.lease(), storeClosed, readHook,
            client, proxy, r.servedBy(), id, leaseHandle, hook, consumerAdvances);
      } catch (YtException e) {
        if (e.httpStatus() != 0) {
          throw e;
        }
        last = e;
        pool.markFailed(proxy);
      }
    }
    throw last;
  }

  /**
   * The tablet transaction's id.
   *
   * @return the tablet transaction id
   */
  public String transactionId() {
    return transactionId;
  }

  /**
   * The proxy that holds the transaction.
   *
   * @return the proxy the transaction is pinned to
   */
  public String proxy() {
    return proxy;
  }

  private Call inTx(YtCommand command, ObjectNode params, List<? extends JsonNode> input, Phase phase) {
    params.put("transaction_id", transactionId);
    return new Call(command, params, input, proxy, phase, servedBy, false);
  }

  @Override
  protected List<Optional<Row>> doLookup(YtTable table, List<TableKey> keys) {
    return lookupRows(client, table, keys, (params, input) -> inTx(YtCommand.LOOKUP_ROWS, params, input,
        Phase.IN_TRANSACTION));
  }

  /**
   * Looks {@code keys} up with one {@code lookup_rows} per {@link YtTableStoreSupport#LOOKUP_CHUNK} keys, each sent as
   * {@code call} builds it from the parameters and the key rows.
   */
  static List<Optional<Row>> lookupRows(YtHttpClient client, YtTable table, List<TableKey> keys,
      java.util.function.BiFunction<ObjectNode, List<JsonNode>, Call> call) {
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (int from = 0; from < keys.size(); from += YtTableStoreSupport.LOOKUP_CHUNK) {
      List<TableKey> chunk = keys.subList(from, Math.min(keys.size(), from + YtTableStoreSupport.LOOKUP_CHUNK));
      List<JsonNode> input = new ArrayList<>(chunk.size());
      for (TableKey k : chunk) {
        input.add(YtRowCodec.keyToJson(k));
      }
      ObjectNode params = YtJson.object().put("path", table.ytPath()).put("keep_missing_rows", true)
          .put("dump_error_into_response", true);
      out.addAll(YtTableStoreSupport.matchLookup(table, chunk, client.rows(call.apply(params, input))));
    }
    return out;
  }

  @Override
  protected List<JsonNode> scanAnswer(YtTable table) {
    ObjectNode params = YtJson.object().put("query", "* FROM [" + table.ytPath() + "]")
        .put("output_row_limit", YtTableStoreSupport.SCAN_LIMIT).put("input_row_limit", YtTableStoreSupport.SCAN_LIMIT)
        .put("fail_on_incomplete_result", true).put("dump_error_into_response", true);
    return client.rows(inTx(YtCommand.SELECT_ROWS, params, null, Phase.IN_TRANSACTION));
  }

  @Override
  protected Row decodeScanned(YtTable table, JsonNode json) {
    return YtRowCodec.rowFromJson(table.schema(), json, null);
  }

  @Override
  protected void doCommit(Map<YtTable, LinkedHashMap<TableKey, Row>> writes) {
    try {
      if (leaseHandle != null) {
        leaseHandle.checkNotLost();
      }
      for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> e : writes.entrySet()) {
        YtTable table = e.getKey();
        hook.beforeTableWrite(table.schema().path());
        List<JsonNode> upserts = new ArrayList<>();
        List<JsonNode> deletes = new ArrayList<>();
        for (Map.Entry<TableKey, Row> w : e.getValue().entrySet()) {
          if (w.getValue() == null) {
            deletes.add(YtRowCodec.keyToJson(w.getKey()));
          } else {
            upserts.add(YtRowCodec.rowToJson(w.getValue()));
          }
        }
        if (!upserts.isEmpty()) {
          ObjectNode p = YtJson.object().put("path", table.ytPath()).put("atomicity", "full");
          client.execute(inTx(YtCommand.INSERT_ROWS, p, upserts, Phase.IN_TRANSACTION));
        }
        if (!deletes.isEmpty()) {
          ObjectNode p = YtJson.object().put("path", table.ytPath()).put("atomicity", "full");
          client.execute(inTx(YtCommand.DELETE_ROWS, p, deletes, Phase.IN_TRANSACTION));
        }
      }
      for (ConsumerAdvances.EpochCommit epoch : consumerAdvances.forCommit(writes,
          (table, key) -> doLookup(table, List.of(key)).get(0))) {
        for (ConsumerAdvances.Advance a : epoch.advances()) {
          advance(epoch.txid(), a);
        }
      }
    } catch (RuntimeException e) {
      doAbort();
      throw e;
    }
    ObjectNode p = YtJson.object();
    if (leaseHandle != null) {
      p.putArray("prerequisite_transaction_ids").add(leaseHandle.transactionId());
    }
    try {
      client.execute(inTx(YtCommand.COMMIT_TRANSACTION, p, null, Phase.COMMIT));
    } catch (CommitConflictException e) {
      CommitConflictException named = new CommitConflictException("commit of YTsaurus tablet transaction "
          + transactionId + " failed with a row lock conflict (1700): an overlapping transaction committed a write "
          + "to a row this one writes; nothing was applied. " + conflictLocation(e, writes) + ". YTsaurus said: "
          + e.getMessage());
      named.initCause(e.getCause());
      throw named;
    } catch (LeaseLostException e) {
      if (leaseHandle != null) {
        leaseHandle.markLost("a commit was refused with 'prerequisite check failed'");
        LeaseLostException named = new LeaseLostException(leaseHandle.lease() + " was taken over or expired: "
            + "YTsaurus refused the commit of tablet transaction " + transactionId + " (prerequisite master "
            + "transaction " + leaseHandle.transactionId() + " is gone); nothing was applied. " + e.getMessage());
        named.initCause(e.getCause());
        throw named;
      }
      throw e;
    }
  }

  /**
   * {@code advance_queue_consumer} with {@code old_offset} inside this tablet transaction; error 3100 (the consumer
   * holds another offset) becomes {@link YtConsumerOffsetMismatchException}.
   */
  private void advance(long txid, ConsumerAdvances.Advance a) {
    ObjectNode p = YtJson.object().put("consumer_path", a.consumerPath()).put("queue_path", a.queuePath())
        .put("partition_index", a.partition()).put("old_offset", a.oldOffset()).put("new_offset", a.newOffset());
    try {
      client.execute(inTx(YtCommand.ADVANCE_QUEUE_CONSUMER, p, null, Phase.IN_TRANSACTION));
      LOG.debug("tablet transaction {}: consumer {} of {} partition {} advanced {} -> {} (pipeline '{}', txid {})",
          transactionId, a.consumerPath(), a.queuePath(), a.partition(), a.oldOffset(), a.newOffset(), a.pipeline(),
          txid);
    } catch (YtException e) {
      if (e.hasCode(YtError.CONSUMER_OFFSET_CONFLICT)) {
        long found = e.error().flatMap(x -> x.find(YtError.CONSUMER_OFFSET_CONFLICT))
            .map(x -> x.attributes().get("current_offset")).filter(Number.class::isInstance)
            .map(n -> ((Number) n).longValue()).orElse(-1L);
        throw new YtConsumerOffsetMismatchException(a.pipeline(), a.queuePath(), a.consumerPath(), a.partition(),
            a.oldOffset(), found, a.newOffset(), txid, e);
      }
      throw e;
    }
  }

  private static String conflictLocation(CommitConflictException e, Map<YtTable, LinkedHashMap<TableKey, Row>> w) {
    if (e.getCause() instanceof YtException yt && yt.error().isPresent()) {
      Optional<YtError> conflict = yt.error().get().find(YtError.TRANSACTION_LOCK_CONFLICT);
      Object path = conflict.map(c -> c.attributes().get("table_path")).orElse(null);
      if (path != null) {
        for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> entry : w.entrySet()) {
          if (entry.getKey().ytPath().equals(path)) {
            return "Conflicting write: " + describeWrites(Map.of(entry.getKey(), entry.getValue()))
                + " (YTsaurus reported key " + conflict.get().attributes().getOrDefault("key", "?") + ")";
          }
        }
      }
    }
    return "The transaction wrote " + describeWrites(w);
  }

  @Override
  protected void doAbort() {
    try {
      client.execute(inTx(YtCommand.ABORT_TRANSACTION, YtJson.object(), null, Phase.IN_TRANSACTION));
    } catch (RuntimeException e) {
      LOG.debug("abort of tablet transaction {} on {}: {}", transactionId, proxy, e.getMessage());
    }
  }
}
