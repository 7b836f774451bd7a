package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * SQL round trips per epoch of an exactly-once word count on {@link PostgresTableStore}, counted on the real server
 * of {@link TestPostgres} through a pool whose statements count their executions (each {@code execute*} call of pgjdbc
 * is one round trip; the pool's own connection checks are not counted). One partition, one transactional state, one
 * batch in flight, a fenced (leased) checkpoint store: per committed epoch exactly 7, two store transactions and
 * one lookup of the batch's keys. The coordinator's {@code recordPending} (the batch's spout metadata, written before
 * the batch is emitted) is a store transaction of {@code BEGIN} (which also reads the lease row in the new snapshot),
 * one statement batch (the lease check {@code FOR SHARE} and the checkpoint row) and {@code COMMIT}; the epoch's
 * commit is the same with the state's rows in the statement batch. Before the lease check and the rows were sent as
 * one batch, it was 10 (the lease check and each table's rows one round trip each). The store README's round-trip
 * table is this count.
 */
class PostgresRoundTripsTest {
  private static final int BATCHES = 8;
  private static final int BATCH_SIZE = 50;

  private final TestPostgres pg = TestPostgres.get();
  private final String schema = pg.freshSchema("trips");

  /** Executions per kind of statement (its first words), over the whole run. */
  private final Map<String, AtomicInteger> byKind = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();

  @Test
  void shouldCostSevenRoundTripsPerEpoch() {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(pg.jdbcUrl());
    cfg.setUsername(TestPostgres.USER);
    cfg.setPassword(TestPostgres.PASSWORD);
    cfg.setMaximumPoolSize(4);
    List<Integer> atCommit = new ArrayList<>();
    List<Map<String, Integer>> kindsAtCommit = new ArrayList<>();
    try (HikariDataSource pool = new HikariDataSource(cfg);
        PostgresTableStore store = PostgresTableStore.builder(counting(pool)).schema(schema).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("round-trips").build();
      PipelineBuilder builder = Pipeline.newBuilder("trips").partitions(1).threads(1).maxBatchesInFlight(1)
          .checkpointStore(checkpoints)
          .listener(new PipelineListener() {
            @Override
            public void onBatchCommitted(BatchReport report) {
              atCommit.add(total.get());
              kindsAtCommit.add(snapshot());
            }
          });
      builder.source(GeneratedSpout.of("words", (long) BATCHES * BATCH_SIZE, BATCH_SIZE, i -> "w" + (i % 37)))
          .groupBy(w -> w)
          .persistentAggregate("counts", TransactionalTableLayout.factory(
              TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
      try (Pipeline pipeline = builder.build()) {
        pipeline.runUntilIdle();
        assertEquals(BATCHES, pipeline.lastCommittedTxid());
      }
    }
    assertEquals(BATCHES, atCommit.size(), "one report per committed batch");
    // from the third epoch on (tables open, checkpoint known): the same statements every epoch
    for (int i = 2; i < atCommit.size(); i++) {
      int trips = atCommit.get(i) - atCommit.get(i - 1);
      Map<String, Integer> kinds = delta(kindsAtCommit.get(i - 1), kindsAtCommit.get(i));
      assertEquals(7, trips, "round trips of epoch " + (i + 1) + ": " + kinds);
      assertEquals(Map.of("lookup", 1, "begin", 2, "writes", 2, "commit", 2), kinds, "epoch " + (i + 1));
    }
    assertTrue(byKind.containsKey("lookup"), "the count sees the store's statements: " + byKind);
  }

  private Map<String, Integer> snapshot() {
    Map<String, Integer> out = new TreeMap<>();
    byKind.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  private static Map<String, Integer> delta(Map<String, Integer> before, Map<String, Integer> after) {
    Map<String, Integer> out = new TreeMap<>();
    after.forEach((k, v) -> {
      int d = v - before.getOrDefault(k, 0);
      if (d != 0) {
        out.put(k, d);
      }
    });
    return out;
  }

  /** The kind of a statement, for the report: what it does in an epoch. */
  private static String kind(String sql) {
    String s = sql.trim();
    if (s.startsWith("BEGIN")) {
      return "begin";
    }
    if (s.equals("COMMIT")) {
      return "commit";
    }
    if (s.equals("ROLLBACK")) {
      return "rollback";
    }
    if (s.contains("FOR SHARE") && s.contains("WITH u AS")) {
      return "writes";
    }
    if (s.contains("FOR SHARE")) {
      return "lease check";
    }
    if (s.contains("CROSS JOIN LATERAL") || (s.startsWith("SELECT u.\"$ord\""))) {
      return "lookup";
    }
    if (s.startsWith("WITH u AS")) {
      return "table write";
    }
    return "other: " + s.substring(0, Math.min(40, s.length()));
  }

  private DataSource counting(DataSource ds) {
    return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, m, args) -> {
          Object r = invoke(ds, m, args);
          return m.getName().equals("getConnection") ? countingConnection((Connection) r) : r;
        });
  }

  private Connection countingConnection(Connection c) {
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, m, args) -> {
          Object r = invoke(c, m, args);
          if (m.getName().equals("prepareStatement")) {
            return countingStatement((Statement) r, PreparedStatement.class, (String) args[0]);
          }
          if (m.getName().equals("createStatement")) {
            return countingStatement((Statement) r, Statement.class, null);
          }
          return r;
        });
  }

  private Object countingStatement(Statement st, Class<?> type, String preparedSql) {
    InvocationHandler h = (proxy, m, args) -> {
      if (m.getName().startsWith("execute")) {
        String sql = preparedSql != null ? preparedSql : (String) args[0];
        total.incrementAndGet();
        byKind.computeIfAbsent(kind(sql), k -> new AtomicInteger()).incrementAndGet();
      }
      return invoke(st, m, args);
    };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(m + " " + Arrays.toString(args), e);
    }
  }
}
