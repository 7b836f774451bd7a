package io.epochal.store.postgres;

import io.epochal.codec.Codecs;
import io.epochal.errors.LeaseLostException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * The word count of {@link PostgresCrashIT} and {@link PostgresFencingIT}, run in a child JVM: a transactional
 * {@link GeneratedSpout} of sentences, split into words, counted into a {@code TransactionalMap} table and an
 * {@code OpaqueMap} table of one {@link PostgresTableStore}, through a {@link TableCheckpointStore} with the given
 * protocol: {@code EPOCH} (every dirty row of both states, the spout metadata and the txid in one SQL transaction)
 * or {@code PER_KEY} (Trident's: each state write its own transaction, txids in the cells, checkpoint last).
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <schema> <seed> <sentences> <batch size> <EPOCH|PER_KEY>
 * [<pause ms after each commit>]}. Prints {@code READY <txid>} once the pipeline is built (lease taken, checkpoint
 * recovered), {@code C <txid>} after every commit and {@code DONE <txid>} when the input is exhausted, each followed
 * by the milliseconds since the JVM started; {@code FENCED <last committed txid> <message>} (exit code 3) if another
 * worker took its lease over.
 */
public final class WordCountWorker {
  static final String PIPELINE = "wordcount";
  static final String TRANSACTIONAL_STATE = "counts_tx";
  static final String OPAQUE_STATE = "counts_opaque";
  /** The tables the two states live in ({@code <pipeline>/<state>}). */
  static final String TRANSACTIONAL_TABLE = PIPELINE + "/" + TRANSACTIONAL_STATE;
  static final String OPAQUE_TABLE = PIPELINE + "/" + OPAQUE_STATE;
  private static final int VOCABULARY = 3000;

  private WordCountWorker() {
  }

  /**
   * Sentence {@code i}: 3 to 12 words from a skewed vocabulary of {@value #VOCABULARY} words, a pure function of
   * {@code (seed, i)}, so a replayed batch emits the same sentences and the test can recount.
   */
  static LongFunction<String> sentences(long seed) {
    return i -> {
      SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
      int n = r.nextInt(3, 13);
      StringBuilder sb = new StringBuilder();
      for (int w = 0; w < n; w++) {
        double u = r.nextDouble();
        int word = (int) (VOCABULARY * u * u * u); // skewed: low ids are frequent
        sb.append(w == 0 ? "" : " ").append("w").append(word);
      }
      return sb.toString();
    };
  }

  static List<String> words(String sentence) {
    return Arrays.asList(sentence.split(" "));
  }

  /** @return the worker's arguments */
  static List<String> args(TestPostgres pg, String schema, long seed, long count, int batchSize,
      CommitProtocol protocol, long pauseMillis) {
    return List.of(pg.jdbcUrl(), TestPostgres.USER, TestPostgres.PASSWORD, schema, Long.toString(seed),
        Long.toString(count), Integer.toString(batchSize), protocol.name(), Long.toString(pauseMillis));
  }

  private static long uptime() {
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
  }

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String user = args[1];
    String password = args[2];
    String schema = args[3];
    long seed = Long.parseLong(args[4]);
    long count = Long.parseLong(args[5]);
    int batchSize = Integer.parseInt(args[6]);
    CommitProtocol protocol = CommitProtocol.valueOf(args[7]);
    long pause = args.length > 8 ? Long.parseLong(args[8]) : 0;
    boolean fenced = false;

    try (PostgresTableStore store = PostgresTableStore.builder(url).user(user).password(password).schema(schema)
        .poolSize(6).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store)
          .owner("wordcount-pid-" + ProcessHandle.current().pid()).protocol(protocol).build();
      var transactional = TransactionalTableLayout.factory(
          TableStates.builder(checkpoints, KeyCodec.strings("word"), Codecs.longs()));
      var opaque = OpaqueTableLayout.factory(
          TableStates.builder(checkpoints, KeyCodec.strings("word"), Codecs.longs()));
      PipelineBuilder builder = Pipeline.newBuilder(PIPELINE)
          .partitions(4)
          .threads(2)
          .maxBatchesInFlight(2)
          .checkpointStore(checkpoints)
          .listener(new PipelineListener() {
            @Override
            public void onBatchCommitted(BatchReport report) {
              System.out.println("C " + report.txid() + " " + uptime());
              if (pause > 0) {
                try {
                  Thread.sleep(pause);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            }
          });
      GroupedStream<String, String> words = builder
          .source(GeneratedSpout.of("sentences", count, batchSize, sentences(seed)))
          .flatMap(WordCountWorker::words)
          .groupBy(w -> w);
      words.persistentAggregate(TRANSACTIONAL_STATE, transactional, Aggregators.count());
      words.persistentAggregate(OPAQUE_STATE, opaque, Aggregators.count());
      try (Pipeline pipeline = builder.build()) {
        System.out.println("READY " + pipeline.lastCommittedTxid() + " " + uptime());
        try {
          pipeline.runUntilIdle();
        } catch (LeaseLostException e) {
          System.out.println("FENCED " + pipeline.lastCommittedTxid() + " " + e.getMessage());
          fenced = true;
        }
        if (!fenced) {
          System.out.println("DONE " + pipeline.lastCommittedTxid() + " " + uptime());
        }
      }
    }
    if (fenced) {
      System.out.println("CLOSED");
      System.exit(3);
    }
  }
}
