package io.epochal.benchmarks;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The limit of a hand-written exactly-once loop on PostgreSQL, on the same server as the Epochal PostgreSQL variants:
 * per batch of {@code batch} sentences, read and split the lines and aggregate the words in a {@link HashMap}, then ONE
 * SQL transaction (READ COMMITTED, the default: one writer) of two statements and the commit:
 * <ol>
 *   <li>{@value #UPSERT_TEXT}: the batch's counts as two JDBC arrays, added on the server
 *       ({@code count = count + excluded.count}, so the loop never reads the counts back); a row already at the
 *       batch's txid is left alone, the transactional rule that makes a replay harmless;</li>
 *   <li>the committed txid in a one-row table.</li>
 * </ol>
 * Table {@code counts(word text COLLATE "C" PRIMARY KEY, count bigint, txid bigint)}, {@code fillfactor = 80} as
 * Epochal's tables. One thread, one connection.
 */
public final class BarePostgresLoop {
  /** How the loop writes, as the summary states it. */
  static final String UPSERT_TEXT = "INSERT INTO counts SELECT … FROM unnest(?::text[], ?::bigint[]) ON CONFLICT "
      + "(word) DO UPDATE SET count = counts.count + excluded.count, txid = excluded.txid WHERE counts.txid < "
      + "excluded.txid";

  private BarePostgresLoop() {
  }

  /**
   * Counts the corpus in batches into the run's schema, timing the section from the first batch to the last commit.
   *
   * @param ctx the run: corpus, {@code batch=}, {@code jdbc=}, {@code jdbcUser=}, {@code schema=} and the meter
   * @return the committed counts, read back from the table after the timed section
   * @throws Exception if the database or the corpus fails (the child records it as the run's error)
   */
  public static Map<String, Long> run(RunContext ctx) throws Exception {
    int batchSize = ctx.batch();
    String schema = "\"" + ctx.schema() + "\"";
    String counts = schema + ".counts";
    String meta = schema + ".committed";
    try (Connection c = PostgresServer.connect(ctx.jdbcUrl(), ctx.jdbcUser(), PostgresServer.childPassword())) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE SCHEMA " + schema);
        st.execute("CREATE TABLE " + counts + " (word text COLLATE \"C\" PRIMARY KEY, count bigint NOT NULL, "
            + "txid bigint NOT NULL) WITH (fillfactor = 80)");
        st.execute("CREATE TABLE " + meta + " (id int PRIMARY KEY, txid bigint NOT NULL)");
        st.execute("INSERT INTO " + meta + " VALUES (1, 0)");
      }
      c.setAutoCommit(false);
      ctx.extra().setProperty("method", UPSERT_TEXT);
      long txid = 0;
      try (PreparedStatement upsert = c.prepareStatement("INSERT INTO " + counts + " AS c (word, count, txid) "
              + "SELECT u.w, u.n, ? FROM unnest(?::text[], ?::bigint[]) AS u(w, n) "
              + "ON CONFLICT (word) DO UPDATE SET count = c.count + excluded.count, txid = excluded.txid "
              + "WHERE c.txid < excluded.txid");
          PreparedStatement commitTxid = c.prepareStatement("UPDATE " + meta + " SET txid = ? WHERE id = 1");
          BufferedReader in = Files.newBufferedReader(ctx.corpus(), StandardCharsets.UTF_8)) {
        ctx.meter().start();
        HashMap<String, long[]> agg = new HashMap<>(1 << 16);
        boolean more = true;
        while (more) {
          agg.clear();
          int lines = 0;
          String line;
          while (lines < batchSize && (line = in.readLine()) != null) {
            lines++;
            for (String word : line.split(" ")) {
              long[] n = agg.get(word);
              if (n == null) {
                agg.put(word, new long[] {1});
              } else {
                n[0]++;
              }
            }
          }
          more = lines == batchSize;
          if (lines == 0) {
            break;
          }
          txid++;
          String[] words = new String[agg.size()];
          Long[] deltas = new Long[agg.size()];
          int i = 0;
          for (Map.Entry<String, long[]> e : agg.entrySet()) {
            words[i] = e.getKey();
            deltas[i++] = e.getValue()[0];
          }
          Array wordArray = c.createArrayOf("text", words);
          Array deltaArray = c.createArrayOf("bigint", deltas);
          upsert.setLong(1, txid);
          upsert.setArray(2, wordArray);
          upsert.setArray(3, deltaArray);
          int written = upsert.executeUpdate();
          if (written != words.length) {
            throw new IllegalStateException("batch " + txid + " wrote " + written + " of " + words.length + " rows");
          }
          commitTxid.setLong(1, txid);
          if (commitTxid.executeUpdate() != 1) {
            throw new IllegalStateException("no committed-txid row");
          }
          c.commit();
          wordArray.free();
          deltaArray.free();
        }
        ctx.meter().stop();
      }
      ctx.extra().setProperty("batches", Long.toString(txid));
      c.setAutoCommit(true);
      Map<String, Long> out = new HashMap<>();
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT word, count FROM " + counts)) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
      return out;
    } finally {
      PostgresServer.dropSchema(ctx.jdbcUrl(), ctx.jdbcUser(), PostgresServer.childPassword(), ctx.schema());
    }
  }
}
