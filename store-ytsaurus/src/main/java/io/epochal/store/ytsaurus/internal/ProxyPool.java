package io.epochal.store.ytsaurus.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heavy proxies a pinned tablet transaction may be started on. Discovered once from the entry proxy with
 * {@code /hosts} (fallback {@code discover_proxies}); {@link #next()} hands them out round-robin so epochs spread over
 * the proxies; {@link #markFailed(String)} moves a proxy that could not be reached to the back and, once every proxy
 * failed, discovery runs again. If discovery is disabled or finds nothing, the entry proxy itself is used (right for
 * a single-process local cluster, wrong behind a load balancer: then tablet transactions fail with 11000).
 *
 * <p>Thread-safe.
 */
public final class ProxyPool {
  private static final Logger LOG = LoggerFactory.getLogger(ProxyPool.class);

  private final YtHttpClient client;
  private final String entryProxy;
  private final boolean discover;
  private final List<String> proxies = new ArrayList<>();
  private int cursor;
  private int failuresSinceDiscovery;

  /**
   * Makes the pool of proxies tablet transactions are pinned to, discovering heavy proxies now if
   * {@code discover}.
   *
   * @param client the client
   * @param entryProxy the proxy given by the user (balancer or a proxy)
   * @param discover whether to discover heavy proxies
   */
  public ProxyPool(YtHttpClient client, String entryProxy, boolean discover) {
    this.client = Objects.requireNonNull(client, "client");
    this.entryProxy = Objects.requireNonNull(entryProxy, "entryProxy");
    this.discover = discover;
    refresh();
  }

  private synchronized void refresh() {
    List<String> found = discover ? client.discoverHeavyProxies(entryProxy) : List.of();
    proxies.clear();
    if (found.isEmpty()) {
      if (discover) {
        LOG.warn("YTsaurus heavy-proxy discovery on {} found nothing (/hosts and discover_proxies); pinning tablet "
            + "transactions to {} itself. Behind a load balancer this fails with 11000.", entryProxy, entryProxy);
      }
      proxies.add(entryProxy);
    } else {
      proxies.addAll(found);
      LOG.info("YTsaurus heavy proxies discovered through {}: {}", entryProxy, proxies);
    }
    cursor = 0;
    failuresSinceDiscovery = 0;
  }

  /**
   * Picks the proxy for the next tablet transaction.
   *
   * @return the proxy for the next tablet transaction
   */
  public synchronized String next() {
    String p = proxies.get(Math.floorMod(cursor, proxies.size()));
    cursor++;
    return p;
  }

  /**
   * The number of proxies the pool knows.
   *
   * @return the number of known proxies
   */
  public synchronized int size() {
    return proxies.size();
  }

  /**
   * The proxies the pool knows.
   *
   * @return the known proxies, best first
   */
  public synchronized List<String> proxies() {
    return List.copyOf(proxies);
  }

  /**
   * Notes that {@code proxy} could not be reached; rediscovers after every known proxy failed once.
   *
   * @param proxy the proxy
   */
  public synchronized void markFailed(String proxy) {
    if (proxies.remove(proxy)) {
      proxies.add(proxy);
    }
    if (++failuresSinceDiscovery >= proxies.size()) {
      refresh();
    }
  }
}
