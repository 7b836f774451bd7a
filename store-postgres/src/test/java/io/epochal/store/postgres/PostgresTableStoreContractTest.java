package io.epochal.store.postgres;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.TableStoreContractKit;

/**
 * The whole {@code TableStoreContract} (lookups, visibility, atomic multi-table commit, conflicts, leases and
 * fencing, schemas, persistence across reopen, read faults: an unreadable store and damaged row bytes) plus the kit's replay checks through every fault point, against a
 * real PostgreSQL server: each test gets a fresh PostgreSQL schema, and a second store of the same test reopens it.
 */
class PostgresTableStoreContractTest extends TableStoreContractKit {
  private final TestPostgres pg = TestPostgres.get();
  private final String schema = pg.freshSchema("contract");

  @Override
  protected TableStore createStore(CommitHook hook) {
    return pg.store(schema).commitHook(hook).build();
  }

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return pg.store(schema).commitHook(commit).readHook(read).build();
  }
}
