package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.epochal.codec.Codecs;
import io.epochal.spouts.Range;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Checks the store of a {@link WordCountWorker} run against an exact recount of its input: opens the store's
 * schema, reads the checkpoint and both count tables, and compares them with
 * the recount up to the committed spout position. Under the epoch protocol exactly (state and checkpoint are one
 * write); under the per-key protocol each word's count is that recount or, if the worker died between the state
 * writes and the checkpoint of the next batch, the recount including that batch (which its replay skips per key).
 * The recount advances incrementally, so checking after every kill stays linear in the input.
 */
final class WordCountCheck {
  private final TestPostgres pg;
  private final String schema;
  private final long seed;
  private final CommitProtocol protocol;
  private final Recount recount;

  WordCountCheck(TestPostgres pg, String schema, long seed, CommitProtocol protocol) {
    this.pg = pg;
    this.schema = schema;
    this.seed = seed;
    this.protocol = protocol;
    this.recount = new Recount(WordCountWorker.sentences(seed));
  }

  /** @return the number of distinct words counted so far */
  int distinctWords() {
    return recount.counts.size();
  }

  /** Committed position of the pipeline: txid, end of its spout range, end of the recorded pending ranges. */
  record Progress(long txid, long end, long pendingEnd) {
  }

  /**
   * Opens the store, reads the checkpoint and both count tables, and checks them against the recount up to
   * the committed spout position (see the class documentation for the per-key allowance).
   */
  Progress verify() {
    try (PostgresTableStore store = pg.store(schema).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("crash-test-checker")
          .protocol(protocol).build();
      Checkpoint cp = checkpoints.load(WordCountWorker.PIPELINE);
      long end = cp.hasCommitted() ? Range.codec().decode(cp.committedMetadata()).end() : 0;
      long pendingEnd = end;
      for (byte[] pending : cp.pendingMetadata().values()) {
        pendingEnd = Math.max(pendingEnd, Range.codec().decode(pending).end());
      }
      Map<String, Long> expected = recount.upTo(end);
      Map<String, Long> nextBatch = Map.of();
      byte[] next = cp.pendingMetadata().get(cp.committedTxid() + 1);
      if (protocol == CommitProtocol.PER_KEY && next != null) {
        Range r = Range.codec().decode(next);
        assertEquals(end, r.start(), "the next batch starts where the committed one ended");
        nextBatch = recount.countsOf(r.start(), r.end());
      }
      TransactionalTableLayout<Long> tx = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
      OpaqueTableLayout<Long> opaque = new OpaqueTableLayout<>(Codecs.longs(), v -> false);
      String where = " after committed txid " + cp.committedTxid() + " (records [0, " + end + "), " + protocol
          + ", seed " + seed + ")";
      assertCounts(expected, nextBatch, read(store, WordCountWorker.TRANSACTIONAL_TABLE, r -> tx.read(r).value()),
          "TransactionalMap counts" + where);
      assertCounts(expected, nextBatch, read(store, WordCountWorker.OPAQUE_TABLE, r -> opaque.read(r).curr()),
          "OpaqueMap counts" + where);
      return new Progress(cp.committedTxid(), end, pendingEnd);
    }
  }

  /**
   * Fails naming the first words whose stored count is neither the recount nor (per-key protocol) the recount plus
   * the word's count in the next, partially applied batch.
   */
  private static void assertCounts(Map<String, Long> expected, Map<String, Long> nextBatch, Map<String, Long> actual,
      String what) {
    TreeMap<String, String> diff = new TreeMap<>();
    Set<String> words = new TreeSet<>(expected.keySet());
    words.addAll(actual.keySet());
    words.addAll(nextBatch.keySet());
    for (String w : words) {
      Long stored = actual.get(w);
      Long exact = expected.get(w);
      Long ahead = nextBatch.containsKey(w) ? (exact == null ? 0 : exact) + nextBatch.get(w) : exact;
      if (!Objects.equals(stored, exact) && !Objects.equals(stored, ahead)) {
        diff.put(w, "recount " + exact + (ahead.equals(exact) ? "" : " (or " + ahead + ")") + ", stored " + stored);
      }
    }
    if (!diff.isEmpty()) {
      fail(what + ": " + diff.size() + " of " + words.size() + " words differ, e.g. "
          + diff.entrySet().stream().limit(8).map(Object::toString).toList());
    }
  }

  private static Map<String, Long> read(PostgresTableStore store, String path, Function<Row, Long> value) {
    Optional<Table> table = store.findTable(path);
    Map<String, Long> out = new HashMap<>();
    if (table.isEmpty()) {
      return out;
    }
    try (StoreTransaction tx = store.begin()) {
      for (Row row : tx.scan(table.get())) {
        out.put(row.getString("word"), value.apply(row));
      }
    }
    return out;
  }

  /** An exact recount of the sentence sequence, advanced incrementally. */
  private static final class Recount {
    private final LongFunction<String> sentences;
    private final Map<String, Long> counts = new HashMap<>();
    private long end;

    Recount(LongFunction<String> sentences) {
      this.sentences = sentences;
    }

    /** @return the counts of records {@code [0, newEnd)}; {@code newEnd} never goes back */
    Map<String, Long> upTo(long newEnd) {
      assertTrue(newEnd >= end, "the committed spout position went back from " + end + " to " + newEnd);
      for (; end < newEnd; end++) {
        add(counts, end);
      }
      return counts;
    }

    /** @return the counts of records {@code [from, to)} alone */
    Map<String, Long> countsOf(long from, long to) {
      Map<String, Long> out = new HashMap<>();
      for (long i = from; i < to; i++) {
        add(out, i);
      }
      return out;
    }

    private void add(Map<String, Long> into, long record) {
      for (String w : WordCountWorker.words(sentences.apply(record))) {
        into.merge(w, 1L, Long::sum);
      }
    }
  }
}
