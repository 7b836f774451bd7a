package io.epochal.testkit.process;

import io.epochal.api.Evolving;
import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Worker A of a cross-process fencing test, shared by the store modules: run from a store's own {@code main} in a
 * {@link ChildJvm}, it takes lease {@link #LEASE} on the store and writes tables {@link #counter()} and {@link #log()}
 * under it until it is fenced. Reports on stdout: {@code READY <generation>}, {@code C <i>} after each successful
 * commit, {@code FENCED <i> <message>} when commit {@code i} is refused.
 *
 * <p>Modes: {@code hold} commits one transaction, stages a second (rows in both tables), prints READY and commits it
 * only after reading a line on stdin; {@code stream} commits transaction after transaction until it is fenced.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.2.0
 */
@Evolving
public final class FencingWorkload {
  /** The lease worker A holds. */
  public static final String LEASE = "pipeline:fencing";

  private FencingWorkload() {
  }

  /** @return the schema of the counter table */
  public static TableSchema counter() {
    return TableSchema.builder("fence/counter").key("name", ColumnType.STRING).requiredValue("n", ColumnType.INT64)
        .build();
  }

  /** @return the schema of the log table */
  public static TableSchema log() {
    return TableSchema.builder("fence/log").key("i", ColumnType.INT64).requiredValue("who", ColumnType.STRING)
        .build();
  }

  /**
   * Runs worker A in mode {@code hold} or {@code stream} (see the class documentation); the caller closes the store
   * afterwards.
   *
   * @param store the store under test, opened by the caller
   * @param mode {@code "hold"} or {@code "stream"}
   * @throws IOException if stdin cannot be read (mode {@code hold})
   */
  public static void run(TableStore store, String mode) throws IOException {
    Table counter = store.openTable(counter());
    Table log = store.openTable(log());
    Lease lease = store.acquireLease(LEASE, "worker-a-pid-" + ProcessHandle.current().pid());
    if (mode.equals("hold")) {
      try (StoreTransaction tx = store.begin(lease)) {
        tx.upsert(counter, Row.of(counter.schema().key("before"), 1L));
        tx.commit();
      }
      StoreTransaction tx = store.begin(lease);
      tx.upsert(counter, Row.of(counter.schema().key("after"), 2L));
      tx.upsert(log, Row.of(log.schema().key(1L), "a"));
      System.out.println("READY " + lease.generation());
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      try {
        tx.commit();
        System.out.println("C 1");
      } catch (LeaseLostException e) {
        System.out.println("FENCED 1 " + e.getMessage());
      }
    } else if (mode.equals("stream")) {
      System.out.println("READY " + lease.generation());
      for (long i = 1; ; i++) {
        try (StoreTransaction tx = store.begin(lease)) {
          tx.upsert(counter, Row.of(counter.schema().key("n"), i));
          tx.upsert(log, Row.of(log.schema().key(i), "a"));
          tx.commit();
          System.out.println("C " + i);
        } catch (LeaseLostException e) {
          System.out.println("FENCED " + i + " " + e.getMessage());
          break;
        }
      }
    } else {
      throw new IllegalArgumentException("mode must be hold or stream, not " + mode);
    }
  }
}
