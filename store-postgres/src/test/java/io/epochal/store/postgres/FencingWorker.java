package io.epochal.store.postgres;

import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Worker A of {@link PostgresFencingIT}, run in a child JVM: opens the store, takes the lease, and writes under it
 * until it is fenced. Reports on stdout: {@code READY <generation>}, {@code C <i>} after each successful commit,
 * {@code FENCED <i> <message>} when commit {@code i} is refused, {@code CLOSED} after closing the store.
 *
 * <p>Arguments: {@code <hold|stream> <jdbc url> <user> <password> <schema>}. {@code hold} stages one transaction
 * (begun, so its snapshot is taken, with rows in two tables), prints READY and commits it only after reading a line
 * on stdin; {@code stream} commits transaction after transaction until it is fenced.
 */
public final class FencingWorker {
  static final String LEASE = "pipeline:fencing";

  static TableSchema counter() {
    return TableSchema.builder("fence/counter").key("name", ColumnType.STRING).requiredValue("n", ColumnType.INT64)
        .build();
  }

  static TableSchema log() {
    return TableSchema.builder("fence/log").key("i", ColumnType.INT64).requiredValue("who", ColumnType.STRING)
        .build();
  }

  private FencingWorker() {
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    PostgresTableStore store = PostgresTableStore.builder(args[1]).user(args[2]).password(args[3]).schema(args[4])
        .poolSize(2).build();
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
    } else {
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
    }
    store.close();
    System.out.println("CLOSED");
  }
}
