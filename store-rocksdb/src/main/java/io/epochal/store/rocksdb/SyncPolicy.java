package io.epochal.store.rocksdb;

import io.epochal.api.Evolving;

/**
 * How far a committed store transaction (for the epoch protocol: one epoch) is pushed towards the disk before
 * {@code commit()} returns. Either way the write-ahead log (WAL) is on, and each commit is one atomic RocksDB
 * {@code WriteBatch}: after any crash the store recovers to a prefix of the committed transactions, never to part of
 * one, so state rows, spout metadata and the committed txid always agree.
 *
 * <table>
 *   <caption>What survives</caption>
 *   <tr><th>policy</th><th>process crash (SIGKILL, OOM kill, JVM crash)</th>
 *       <th>machine crash (power loss, kernel panic)</th><th>cost per commit</th></tr>
 *   <tr><td>{@link #WAL} (default)</td><td>every commit that returned</td>
 *       <td>a prefix: the last commits (those the OS had not yet written back, typically up to ~30 s with Linux
 *       defaults) may be lost; the coordinator then replays those epochs from the recovered txid</td>
 *       <td>one {@code write(2)} of the WAL record</td></tr>
 *   <tr><td>{@link #FSYNC}</td><td>every commit that returned</td><td>every commit that returned</td>
 *       <td>one {@code write(2)} plus one {@code fdatasync(2)} of the WAL (about 0.1-10 ms, depending on the
 *       device)</td></tr>
 * </table>
 *
 * <p>Losing the last epochs on a machine crash is harmless for exactly-once processing inside the pipeline (the
 * spout positions are rolled back with the state), but effects outside the store (messages sent after a commit) may
 * then be repeated: choose {@link #FSYNC} when the pipeline reports its commits to the outside world.
 *
 * @since 0.1.0
 */
@Evolving
public enum SyncPolicy {
  /**
   * WAL on, no {@code fsync} per commit: survives any process crash; a machine crash may lose the last commits
   * (never part of one). The default.
   */
  WAL,
  /** WAL on and {@code fsync}ed by every commit: survives process and machine crashes without losing a commit. */
  FSYNC
}
