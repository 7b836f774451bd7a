/**
 * Internals of the PostgreSQL store: identifier quoting and the table-path to SQL-name mapping
 * ({@link io.epochal.store.postgres.internal.Names}), the stored schema text, the SQL of one table
 * ({@link io.epochal.store.postgres.internal.PgTable}), the row check encoding with its CRC-32C
 * ({@link io.epochal.store.postgres.internal.RowCheck}) and the translation of SQL errors into Epochal's typed
 * errors ({@link io.epochal.store.postgres.internal.SqlErrors}). Not API: may change in any release.
 */
package io.epochal.store.postgres.internal;
