/**
 * A shared, transactional table store on PostgreSQL.
 *
 * <p>Entry point: {@link io.epochal.store.postgres.PostgresTableStore#builder(String)} (a JDBC URL; the store makes
 * a HikariCP pool) or {@link io.epochal.store.postgres.PostgresTableStore#open(javax.sql.DataSource)}. The store
 * implements {@link io.epochal.store.table.TableStore} with one PostgreSQL table per Epochal table, one
 * {@code REPEATABLE READ} SQL transaction per store transaction (atomic across tables; write-write conflicts reported
 * as {@link io.epochal.errors.CommitConflictException}), and lease generations checked inside the commit, so a
 * fenced worker's commit fails and changes nothing, whichever process it runs in.
 *
 * <pre>{@code
 * PostgresTableStore store = PostgresTableStore.builder("jdbc:postgresql://db:5432/app").user("epochal")
 *     .password(secret).build();
 * TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
 * Pipeline p = Pipeline.newBuilder("wordcount").checkpointStore(checkpoints)...build();
 * }</pre>
 *
 * <p>Everything under {@code io.epochal.store.postgres.internal} is implementation and may change without notice.
 *
 * @since 0.2.0
 */
package io.epochal.store.postgres;
