package io.epochal.tools.internal;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The frame of every inspecting command: opens the store read-only, runs the command with a {@link Report}, closes
 * the store, and turns the unreadable cells into the exit code. Not thread-safe (one run).
 */
public abstract class ToolCommand implements Callable<Integer> {
  /** Exit code: everything was read. */
  public static final int OK = 0;
  /** Exit code: some cells could not be read (reported on standard error and skipped), or no such key. */
  public static final int UNREADABLE = 1;
  /** Exit code: wrong usage (picocli's). */
  public static final int USAGE = 2;
  /** Exit code: the store could not be opened or read. */
  public static final int FAILED = 3;

  @Mixin
  StoreOptions storeOptions;

  @Option(names = "--json", description = "print one JSON document instead of text")
  boolean json;

  @Spec
  CommandSpec spec;

  @Override
  public final Integer call() {
    Report report = new Report(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
    int code;
    try (StoreAccess access = storeOptions.open()) {
      code = run(access, report);
    }
    report.finish();
    return report.unreadableCount() > 0 ? UNREADABLE : code;
  }

  /**
   * Runs the command.
   *
   * @param access the store, opened read-only
   * @param report where rows, unreadable cells and the JSON document go
   * @return the exit code if no cell was unreadable
   */
  protected abstract int run(StoreAccess access, Report report);
}
