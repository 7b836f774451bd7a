package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Stream;
import io.epochal.spout.Spout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two Kafka sources in one pipeline (shows and clicks topics, merged into one word count): every txid holds one batch
 * of each, both spouts' offsets commit in the same epoch, and a pipeline rebuilt by a new worker after a stop resumes
 * both topics where the last epoch left them: the counts equal a recount of both topics, with either spout kind for
 * the clicks.
 */
class KafkaTwoTopicsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  @Test
  void twoTransactionalTopicsCommitTogetherAndResume() {
    run(false);
  }

  @Test
  void aTransactionalAndAnOpaqueTopicCommitTogetherAndResume() {
    run(true);
  }

  private static void run(boolean opaqueClicks) {
    String shows = TestBroker.newTopic("shows");
    String clicks = TestBroker.newTopic("clicks");
    broker.createTopic(shows, 4);
    broker.createTopic(clicks, 2);
    try (KafkaProducer<String, String> p = broker.producer()) {
      for (int i = 0; i < 400; i++) {
        p.send(new ProducerRecord<>(shows, i % 4, null, TestBroker.sentence(7, i)));
        if (i % 3 == 0) {
          p.send(new ProducerRecord<>(clicks, i % 2, null, TestBroker.sentence(8, i)));
        }
      }
      p.flush();
    }
    TableStore store = TableStores.inMemory();
    RunSummary first;
    try (Pipeline pipeline = pipeline(store, "worker-1", shows, clicks, opaqueClicks)) {
      first = pipeline.run(3);
    }
    assertEquals(3, first.batches(), "three batches, then the worker stops");
    try (Pipeline pipeline = pipeline(store, "worker-2", shows, clicks, opaqueClicks)) {
      pipeline.runUntilIdle();
      assertTrue(pipeline.lastCommittedTxid() > 3, "the second worker goes on: " + pipeline.lastCommittedTxid());
      assertEquals(0, pipeline.runUntilIdle().batches(), "both topics drained: nothing new");
    }
    List<String> all = new ArrayList<>(broker.values(shows));
    all.addAll(broker.values(clicks));
    assertEquals(400 + 134, all.size());
    assertEquals(CountWorld.recount(all), CountWorld.read(store, "ads/counts", true));
  }

  private static Pipeline pipeline(TableStore store, String owner, String shows, String clicks, boolean opaque) {
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner(owner).build();
    KafkaSpoutConfig<String, String> showsCfg = KafkaSpoutConfig.strings("shows").bootstrapServers(broker.bootstrap())
        .topics(shows).maxRecordsPerPartition(40).apiTimeout(Duration.ofSeconds(10)).build();
    KafkaSpoutConfig<String, String> clicksCfg = KafkaSpoutConfig.strings("clicks")
        .bootstrapServers(broker.bootstrap()).topics(clicks).maxRecordsPerPartition(15)
        .apiTimeout(Duration.ofSeconds(10)).build();
    Spout<KafkaRecord<String, String>, ?> clickSpout = opaque ? KafkaSpouts.opaque(clicksCfg)
        : KafkaSpouts.transactional(clicksCfg);
    PipelineBuilder b = Pipeline.newBuilder("ads").checkpointStore(checkpoints).partitions(2);
    Stream<KafkaRecord<String, String>> showStream = b.source(KafkaSpouts.transactional(showsCfg));
    Stream<KafkaRecord<String, String>> clickStream = b.source(clickSpout);
    showStream.merge(clickStream).flatMap(CountWorld::words).groupBy(w -> w)
        .persistentAggregate("counts", TransactionalTableLayout.factory(
            TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    return b.build();
  }
}
