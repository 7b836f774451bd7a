package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Lease;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases as YTsaurus leadership: holding lease {@code name} means holding an <b>exclusive Cypress {@code lock}</b> on
 * {@code <root>/_epochal/leases/<name>} under a <b>master transaction</b> that a background thread pings every
 * {@code timeout / 3}. That transaction's id is the {@code prerequisite_transaction_ids} of every fenced tablet commit,
 * so once the lease is taken over (its transaction aborted) or expires, the stale holder's commits fail with 1000.
 *
 * <p>Takeover ({@link #acquire}): abort the transactions holding locks on the lease node (read from {@code @locks}),
 * start a new master transaction, take the exclusive lock (a racing acquirer gets 402; retried), then raise the
 * generation kept in {@code <root>/_epochal/lease_generations/<name>/@epochal_generation} with a {@code set} whose
 * prerequisite is the new transaction (so a holder that was taken over meanwhile cannot raise it). A generation that
 * cannot be read (not a non-negative integer), a {@code @locks} that is not a list, or a transaction id missing from
 * an answer fails the acquisition (not retryable): fencing never restarts from generation 1 over unreadable state.
 *
 * <p>Thread-safe.
 */
public final class LeaseManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseManager.class);
  private static final int MAX_ACQUIRE_ATTEMPTS = 8;

  /** One acquisition of a lease. */
  public static final class Handle {
    private final Lease lease;
    private final String transactionId;
    private volatile boolean lost;
    private volatile String lostReason = "";
    private volatile long lastPingNanos = System.nanoTime();

    Handle(Lease lease, String transactionId) {
      this.lease = lease;
      this.transactionId = transactionId;
    }

    /**
     * The lease this handle is for.
     *
     * @return the lease
     */
    public Lease lease() {
      return lease;
    }

    /**
     * The lease's master transaction.
     *
     * @return the master transaction that holds the Cypress lock
     */
    public String transactionId() {
      return transactionId;
    }

    /**
     * Tells whether the lease is known to be lost.
     *
     * @return whether this process knows the lease is lost
     */
    public boolean isLost() {
      return lost;
    }

    /**
     * The time of the last successful ping.
     *
     * @return when the last ping succeeded ({@link System#nanoTime()})
     */
    public long lastPingNanos() {
      return lastPingNanos;
    }

    void markLost(String reason) {
      if (!lost) {
        lostReason = reason;
        lost = true;
        LOG.warn("{} is lost: {}", lease, reason);
      }
    }

    /**
     * Fails if the lease is known to be lost.
     *
     * @throws LeaseLostException if this process knows the lease is lost
     */
    public void checkNotLost() {
      if (lost) {
        throw new LeaseLostException(lease + " was lost (" + lostReason + "); this writer is fenced off and its "
            + "transaction changed nothing");
      }
    }
  }

  private final YtCypress cypress;
  private final String base;
  private final Duration timeout;
  private final Map<String, Handle> handles = new ConcurrentHashMap<>();
  private final Map<String, Handle> current = new ConcurrentHashMap<>();
  private final ScheduledExecutorService pinger;

  /**
   * Makes the manager of the store's leases and starts its pinger thread; no lease is taken here.
   *
   * @param cypress Cypress access
   * @param root the store root
   * @param timeout the lease (master transaction) timeout
   */
  public LeaseManager(YtCypress cypress, String root, Duration timeout) {
    this.cypress = Objects.requireNonNull(cypress, "cypress");
    this.base = root + "/_epochal";
    this.timeout = timeout;
    this.pinger = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "epochal-yt-lease-pinger");
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(10, timeout.toMillis() / 3);
    pinger.scheduleWithFixedDelay(this::pingAll, period, period, TimeUnit.MILLISECONDS);
  }

  private static String key(String name, long generation) {
    return name + "\u0000" + generation;
  }

  /**
   * Takes over lease {@code name} for {@code owner}.
   *
   * @param name the lease name
   * @param owner the owner
   * @return the lease, one generation above the previous holder's
   * @throws StoreException if YTsaurus cannot be written or racing acquirers kept winning
   */
  public Lease acquire(String name, String owner) {
    String segment = YtCypress.segment(name);
    String lockNode = base + "/leases/" + segment;
    String generationNode = base + "/lease_generations/" + segment;
    cypress.createMapNode(lockNode);
    cypress.createMapNode(generationNode);
    YtHttpClient client = cypress.client();
    for (int attempt = 1; attempt <= MAX_ACQUIRE_ATTEMPTS; attempt++) {
      fencePreviousHolders(name, lockNode);
      ObjectNode start = YtJson.object().put("type", "master").put("timeout", timeout.toMillis());
      start.putObject("attributes").put("title", YtJson.textToJson("epochal lease " + name + " held by " + owner))
          .put("epochal_lease", YtJson.textToJson(name)).put("epochal_owner", YtJson.textToJson(owner));
      JsonNode started = client.json(Call.setup(YtCommand.START_TRANSACTION, start, cypress.proxy()).asMutation());
      JsonNode txNode = started.path("transaction_id");
      if (!txNode.isTextual() || txNode.asText().isEmpty()) {
        throw unreadable(name, "start_transaction answered without a transaction id: "
            + YtRowCodec.abbreviate(started));
      }
      String tx = txNode.asText();
      try {
        ObjectNode lock = YtJson.object().put("path", lockNode).put("mode", "exclusive").put("transaction_id", tx);
        client.execute(Call.setup(YtCommand.LOCK, lock, cypress.proxy()).asMutation());
        long generation = generation(name, generationNode) + 1;
        cypress.set(generationNode + "/@epochal_generation", YtJson.NODES.numberNode(generation), List.of(tx));
        Lease lease = new Lease(name, owner, generation);
        Handle handle = new Handle(lease, tx);
        handles.put(key(name, generation), handle);
        Handle previous = current.put(name, handle);
        if (previous != null) {
          previous.markLost("taken over by " + lease);
        }
        LOG.info("acquired {} (master transaction {})", lease, tx);
        return lease;
      } catch (LeaseLostException | YtTransactionLostException e) {
        LOG.info("lease {}: taken over while acquiring (attempt {}), retrying: {}", name, attempt, e.getMessage());
        abortQuietly(tx);
      } catch (YtException e) {
        abortQuietly(tx);
        if (!e.hasCode(YtError.CONCURRENT_TRANSACTION_LOCK_CONFLICT)) {
          throw e;
        }
        LOG.info("lease {}: lock conflict with a racing acquirer (attempt {}), retrying", name, attempt);
      } catch (RuntimeException e) {
        abortQuietly(tx);
        throw e;
      }
    }
    throw new StoreException("could not acquire lease " + name + " for " + owner + " after " + MAX_ACQUIRE_ATTEMPTS
        + " attempts: other acquirers kept taking it over");
  }

  /** The generation recorded for lease {@code name}: 0 if none was ever recorded. */
  private long generation(String name, String generationNode) {
    java.util.Optional<JsonNode> recorded = cypress.get(generationNode + "/@epochal_generation");
    if (recorded.isEmpty()) {
      return 0;
    }
    JsonNode g = recorded.get();
    if (!g.isIntegralNumber() || !g.canConvertToLong() || g.longValue() < 0) {
      throw unreadable(name, generationNode + "/@epochal_generation holds " + YtRowCodec.abbreviate(g)
          + ", not a generation");
    }
    return g.longValue();
  }

  private static StoreException unreadable(String name, String what) {
    return new StoreException("lease " + name + " cannot be acquired: " + what + ". Refusing to issue a generation "
        + "over state that cannot be read (fencing would restart); repair the node or remove the lease's nodes "
        + "deliberately", null, false, ErrorContext.NONE);
  }

  private void fencePreviousHolders(String name, String lockNode) {
    Handle mine = current.get(name);
    if (mine != null) {
      mine.markLost("being taken over");
    }
    JsonNode locks = cypress.get(lockNode + "/@locks").orElse(YtJson.array());
    if (!locks.isArray()) {
      throw unreadable(name, lockNode + "/@locks holds " + YtRowCodec.abbreviate(locks) + ", not a list of locks");
    }
    List<String> holders = new ArrayList<>();
    for (JsonNode l : locks) {
      JsonNode txNode = l.path("transaction_id");
      if (!txNode.isTextual()) {
        throw unreadable(name, lockNode + "/@locks holds a lock without a transaction id: "
            + YtRowCodec.abbreviate(l));
      }
      String tx = txNode.asText();
      if (!holders.contains(tx)) {
        holders.add(tx);
      }
    }
    for (String tx : holders) {
      LOG.info("lease {}: aborting previous holder's transaction {}", name, tx);
      abortQuietly(tx);
    }
  }

  private void abortQuietly(String tx) {
    try {
      cypress.client().execute(Call.setup(YtCommand.ABORT_TRANSACTION,
          YtJson.object().put("transaction_id", tx), cypress.proxy()));
    } catch (YtException e) {
      if (!e.hasCode(YtError.NO_SUCH_TRANSACTION)) {
        LOG.warn("could not abort transaction {}: {}", tx, e.getMessage());
      }
    }
  }

  /**
   * Finds the handle of a lease this manager issued.
   *
   * @param lease a lease
   * @return its handle
   * @throws IllegalArgumentException if this store did not issue it
   */
  public Handle handle(Lease lease) {
    Handle h = handles.get(key(lease.name(), lease.generation()));
    if (h == null || !h.lease.equals(lease)) {
      throw new IllegalArgumentException(lease + " was not issued by this YTsaurus store");
    }
    return h;
  }

  /**
   * Pings the lease's master transaction now (used before the unfenced single-table write).
   *
   * @param h the handle
   * @throws LeaseLostException if the transaction is gone
   */
  public void pingNow(Handle h) {
    h.checkNotLost();
    ping(h);
    h.checkNotLost();
  }

  private void ping(Handle h) {
    try {
      cypress.client().execute(Call.setup(YtCommand.PING_TRANSACTION,
          YtJson.object().put("transaction_id", h.transactionId), cypress.proxy()));
      h.lastPingNanos = System.nanoTime();
    } catch (YtTransactionLostException | LeaseLostException e) {
      h.markLost("its master transaction " + h.transactionId + " is gone: " + e.getMessage());
    } catch (YtException e) {
      LOG.warn("ping of {} failed: {}", h.lease, e.getMessage());
      if (System.nanoTime() - h.lastPingNanos > timeout.toNanos()) {
        h.markLost("no successful ping for longer than the lease timeout " + timeout);
      }
    }
  }

  private void pingAll() {
    for (Handle h : current.values()) {
      if (!h.isLost()) {
        try {
          ping(h);
        } catch (RuntimeException e) {
          LOG.warn("lease pinger: {}", e.toString());
        }
      }
    }
  }

  /** Stops pinging and aborts the transactions of the leases still held (releasing their locks). */
  @Override
  public void close() {
    pinger.shutdownNow();
    for (Handle h : current.values()) {
      if (!h.isLost()) {
        h.markLost("the store was closed");
        abortQuietly(h.transactionId);
      }
    }
  }
}
