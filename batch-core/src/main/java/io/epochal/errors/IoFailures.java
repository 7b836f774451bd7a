package io.epochal.errors;

import java.util.List;

/**
 * Recognises I/O failures that no retry fixes from their messages anywhere in a cause chain (RocksDB, the JDK and
 * JDBC drivers all report the operating system's text): no space left, a read-only file system, a disk quota,
 * permission denied. Stateless.
 */
final class IoFailures {
  private static final List<String[]> UNFIXABLE = List.of(
      new String[] {"No space left on device", "free disk space (or move the state directory), then restart"},
      new String[] {"Disk quota exceeded", "raise the disk quota (or move the state directory), then restart"},
      new String[] {"Read-only file system", "remount the file system read-write (or move the state directory), then restart"},
      new String[] {"Permission denied", "give this process read-write access to the state directory, then restart"});

  private IoFailures() {
  }

  /** @return {@code {symptom, what to do}} for the first unfixable I/O failure in the chain, or null */
  static String[] unfixable(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
      String m = t.getMessage();
      if (m == null) {
        continue;
      }
      for (String[] u : UNFIXABLE) {
        if (m.contains(u[0])) {
          return u;
        }
      }
    }
    return null;
  }
}
