package io.epochal.examples;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Guards a durable state directory against a rerun with another input: the parameters that decide the input (command,
 * seed, spout kind, batch size) are stored next to the state, and a rerun with different ones is refused (counts
 * would mix two inputs). {@code --fresh true} wipes the directory instead.
 */
final class RunParameters {
  private static final String FILE = "example-run.properties";

  private RunParameters() {
  }

  static void check(Main.Options o) {
    Path dir = o.stateDir();
    try {
      if (o.fresh() && Files.exists(dir)) {
        try (Stream<Path> paths = Files.walk(dir)) {
          paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
      Files.createDirectories(dir);
      Path file = dir.resolve(FILE);
      Properties wanted = new Properties();
      wanted.setProperty("command", o.command());
      wanted.setProperty("seed", Long.toString(o.seed()));
      wanted.setProperty("spout", o.spout());
      wanted.setProperty("batch-size", Integer.toString(o.batchSize()));
      if (Files.exists(file)) {
        Properties stored = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
          stored.load(r);
        }
        if (!stored.equals(wanted)) {
          throw new IllegalArgumentException("state directory " + dir + " holds a run with " + stored
              + ", this run is " + wanted + ": pass --fresh true to start over, or another --state-dir");
        }
      } else {
        try (Writer w = Files.newBufferedWriter(file)) {
          wanted.store(w, "parameters of the example run whose state lives here");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare state directory " + dir, e);
    }
  }
}
