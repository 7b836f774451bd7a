/**
 * The {@code epochal} command: inspects the state and checkpoints of a table store (RocksDB, PostgreSQL, YTsaurus)
 * read-only; entry point {@link io.epochal.tools.Epochal}.
 */
package io.epochal.tools;
