package io.epochal.examples;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Guards a durable state directory against a rerun with another input: the parameters that decide the input (command,
 * seed, spout kind, batch size, the Kafka topics) are stored next to the state, and a rerun with different ones is
 * refused (counts would mix two inputs). {@code --fresh true} deletes the state first
 * ({@code RocksDbTableStore.destroy}, which refuses a directory in use) and {@link #forget}s the parameters.
 */
final class RunParameters {
  private static final String FILE = "example-run.properties";

  private RunParameters() {
  }

  /** Deletes the stored parameters of {@code dir}, if any. */
  static void forget(Path dir) {
    try {
      Files.deleteIfExists(dir.resolve(FILE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir.resolve(FILE), e);
    }
  }

  /**
   * Stores the run's parameters in a new state directory, or checks them against those stored.
   *
   * @throws Main.UsageException if the directory holds a run with other parameters (nothing is changed)
   */
  static void check(Main.Options o) {
    Path dir = o.stateDir();
    Path file = dir.resolve(FILE);
    Properties wanted = new Properties();
    wanted.setProperty("command", o.command());
    wanted.setProperty("seed", Long.toString(o.seed()));
    wanted.setProperty("spout", o.spout());
    wanted.setProperty("batch-size", Integer.toString(o.batchSize()));
    o.kafka().ifPresent(k -> wanted.setProperty("kafka-topics", String.join(",", k.topics())));
    try {
      if (Files.exists(file)) {
        Properties stored = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
          stored.load(r);
        }
        if (!stored.equals(wanted)) {
          throw new Main.UsageException("--state-dir " + dir + " holds a run with " + stored + ", this run is "
              + wanted + " (--seed, --spout or --kafka-kind, --batch-size, the Kafka topics and the command must "
              + "match): pass --fresh true to start over, or another --state-dir");
        }
      } else {
        Files.createDirectories(dir);
        try (Writer w = Files.newBufferedWriter(file)) {
          wanted.store(w, "parameters of the example run whose state lives here");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare state directory " + dir + ": " + e, e);
    }
  }
}
