package io.epochal.store.ytsaurus;

import io.epochal.pipeline.Sleeper;
import io.epochal.store.ytsaurus.internal.YtHttpClient;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The queue protocol checks of {@link YtQueueProtocolChecks} against the {@link YtProtocolDouble} (a test double): they
 * pass here by construction of the double, which proves that the checks run and that the double answers what the live
 * suite ({@code YtLiveTest.QueueUnconfirmed}) will assert against a real cluster.
 */
class YtQueueProtocolDoubleTest extends YtQueueProtocolChecks {
  private static YtProtocolDouble yt;
  private static YtHttpClient client;

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
    client = new YtHttpClient(new YtHttpClient.Settings(Optional.of("test-token"), Duration.ofSeconds(5),
        Duration.ofSeconds(10), 3, Duration.ofMillis(1), Duration.ofMillis(5), Sleeper.system()));
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  @Override
  protected String proxy() {
    return yt.balancerAddress();
  }

  @Override
  protected String freshRoot() {
    return YtDoubleFixture.freshRoot();
  }

  @Override
  protected YtHttpClient client() {
    return client;
  }

  @Override
  protected YtTableStore.Builder store(String root) {
    return YtDoubleFixture.builder(yt, root);
  }

  @Override
  protected Optional<String> token() {
    return Optional.of("test-token");
  }
}
