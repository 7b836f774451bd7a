package io.epochal.errors;

import io.epochal.api.Stable;

/** Two writers claim one state table. Each table has exactly one writer; readers use joiners.
 *
 * @since 0.1.0
 */
@Stable
public final class TableClaimedTwiceException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A table claimed by a second writer; not retryable.
   *
   * @param path the state table's path
   * @param first the writer that claimed the table first
   * @param second the writer that claimed it next
   */
  public TableClaimedTwiceException(String path, String first, String second) {
    super("State table " + path + " is claimed for writing by both " + first + " and " + second, null, false,
        ErrorContext.of(path, null));
  }
}
