package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.LeaseLostException;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.TableCheckpointStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The core's {@link TableCheckpointStore} (coordinator metadata in a table, epoch protocol, lease per pipeline) over
 * {@link YtTableStore} in pinned mode, against the {@link YtProtocolDouble}.
 */
class YtCheckpointStoreTest {
  private static YtProtocolDouble yt;
  private final String root = YtDoubleFixture.freshRoot();

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  @Test
  void shouldPersistCheckpointsAndFenceTheWorkerThatWasTakenOver() {
    try (YtTableStore first = YtDoubleFixture.builder(yt, root).build();
        YtTableStore second = YtDoubleFixture.builder(yt, root).build()) {
      TableCheckpointStore a = TableCheckpointStore.on(first);
      assertEquals(CommitProtocol.EPOCH, a.protocol());
      assertEquals(Checkpoint.EMPTY, a.load("wc"));
      a.recordPending("wc", 1, new byte[] {1});
      a.commit("wc", 1, new byte[] {1});
      a.commit("wc", 2, new byte[] {2});

      TableCheckpointStore b = TableCheckpointStore.on(second);
      Checkpoint loaded = b.load("wc"); // takes the pipeline's lease over
      assertEquals(2, loaded.committedTxid());
      assertArrayEquals(new byte[] {2}, loaded.committedMetadata());
      assertThrows(LeaseLostException.class, () -> a.commit("wc", 3, new byte[] {3}));
      b.commit("wc", 3, new byte[] {3});
      assertEquals(3, b.load("wc").committedTxid());
    }
  }
}
