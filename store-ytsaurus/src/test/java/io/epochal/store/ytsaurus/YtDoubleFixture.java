package io.epochal.store.ytsaurus;

import java.time.Duration;
import java.util.UUID;

/** Shared helpers for tests against the {@link YtProtocolDouble}. */
final class YtDoubleFixture {
  private YtDoubleFixture() {
  }

  /** @return a fresh Cypress root for one test */
  static String freshRoot() {
    return "//tmp/epochal-test/" + UUID.randomUUID().toString().replace("-", "");
  }

  /** @return a builder for the double with fast retries and short timeouts */
  static YtTableStore.Builder builder(YtProtocolDouble yt, String root) {
    return YtTableStore.builder(yt.balancerAddress()).root(root).token("test-token")
        .retries(3, Duration.ofMillis(1), Duration.ofMillis(5)).requestTimeout(Duration.ofSeconds(10))
        .mountTimeout(Duration.ofSeconds(10));
  }
}
