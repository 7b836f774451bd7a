package io.epochal.flow.internal;

import io.epochal.errors.TableClaimedTwiceException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which writer claimed each table. A second, different writer claiming a table is refused; the same writer may claim
 * again (one claim per partition, a pipeline rebuilt after a restart). Thread-safe. Internal.
 */
public final class TableClaims {
  private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();

  /**
   * @throws TableClaimedTwiceException if another writer holds {@code path}
   */
  public void claim(String path, String writer) {
    String first = owners.putIfAbsent(path, writer);
    if (first != null && !first.equals(writer)) {
      throw new TableClaimedTwiceException(path, first, writer);
    }
  }
}
