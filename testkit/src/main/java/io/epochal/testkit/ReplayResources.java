package io.epochal.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files and closeables of a replay run: its own directory, deleted after it, and closing what can close.
 * Stateless.
 */
final class ReplayResources {
  private ReplayResources() {
  }

  /** @return a new directory for one run */
  static Path newRunDirectory() {
    try {
      return Files.createTempDirectory("epochal-replay-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the run", e);
    }
  }

  static void deleteRecursively(Path dir) {
    try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }

  /** Closes {@code o} if it is {@link AutoCloseable}; a failure to close becomes an {@link IllegalStateException}. */
  static void closeIfCloseable(Object o) {
    if (o instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing " + o + " failed", e);
      }
    }
  }
}
