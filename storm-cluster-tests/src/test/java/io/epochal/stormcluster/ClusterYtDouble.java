package io.epochal.stormcluster;

import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.YtProtocolDouble;
import io.epochal.store.ytsaurus.YtTableStore;
import io.epochal.trident.EpochalTrident;
import java.time.Duration;

/**
 * The YTsaurus store against our YTsaurus <b>protocol double</b> ({@code YtProtocolDouble} of store-ytsaurus' tests,
 * an imitation of the HTTP proxy API, not YTsaurus), running in the test JVM, so a process of its own apart from the
 * Storm daemons and workers, which reach it over HTTP through its balancer address. Workers open
 * {@code YtTableStore}s on it; their commits are fenced by the double's prerequisite master transactions. Closing
 * stops it.
 */
final class ClusterYtDouble implements ClusterStore {
  private static final String ROOT = "//tmp/epochal-storm";
  private final YtProtocolDouble yt;
  private TableStore reader;

  ClusterYtDouble() {
    this.yt = YtProtocolDouble.start(2);
  }

  @Override
  public EpochalTrident.SerializableSupplier<TableStore> workerStore() {
    String proxy = yt.balancerAddress();
    return () -> YtTableStore.builder(proxy).root(ROOT).requestTimeout(Duration.ofSeconds(20)).build();
  }

  @Override
  public TableStore reader() {
    if (reader == null) {
      reader = YtTableStore.builder(yt.balancerAddress()).root(ROOT).build();
    }
    return reader;
  }

  @Override
  public void close() {
    if (reader != null) {
      reader.close();
    }
    yt.close();
  }

  @Override
  public String toString() {
    return "the YTsaurus protocol double at " + yt.balancerAddress();
  }
}
