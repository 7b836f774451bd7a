package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.TableStoreContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * The table-store contract as JUnit 5 dynamic tests, for {@link TableStoreContractTest}: container {@code contract}
 * holds one test per {@code @Test} of the {@link TableStoreContract} (run on a fresh subclass instance, as
 * JUnit would), container {@code replay} the replay checks of {@link TableStoreContractKit}. Each dynamic test gets a
 * new temporary directory, deleted afterwards; the factory opens the store there (and reopens it there when the
 * contract tests persistence).
 *
 * <p>The read-fault cases of the contract need the store to call the {@link ReadHook} it is given: build the suite
 * from a {@link ReadHookStoreFactory} ({@code (dir, commit, read) -> ...}). A suite built from a two-argument
 * {@link StoreFactory} gives the store no read hook, so those cases fail (saying so) unless
 * {@link #withoutReadFaults(String)} opts out with a reason. Declare {@link #storesBytes(boolean) storesBytes(false)}
 * for a store that keeps rows as objects rather than bytes.
 *
 * <p>Immutable; {@link #supportsReopen(boolean)}, {@link #tablePaths(UnaryOperator)}, {@link #storesBytes(boolean)}
 * and {@link #withoutReadFaults(String)} return new suites.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableStoreContractSuite implements Iterable<DynamicNode> {

  /** Opens the store under test. */
  @FunctionalInterface
  public interface StoreFactory {
    /**
     * Opens (or, when called again in the same test after the previous store was closed, reopens) the store.
     *
     * @param directory this test's own new directory (ignore it for a store that does not use files)
     * @param hook the fault-injection hook the store must call during its commits
     * @return the store: empty on the first call of a test, holding what the previous one committed on a reopen
     * @throws Exception if the store cannot be opened; the test fails with it
     */
    TableStore open(Path directory, CommitHook hook) throws Exception;
  }

  /**
   * Opens the store under test with both fault-injection hooks.
   *
   * @since 0.2.0
   */
  @FunctionalInterface
  public interface ReadHookStoreFactory {
    /**
     * Opens (or, when called again in the same test after the previous store was closed, reopens) the store.
     *
     * @param directory this test's own new directory (ignore it for a store that does not use files)
     * @param commit the hook the store must call during its commits
     * @param read the hook the store must call on every read (see {@link ReadHook})
     * @return the store: empty on the first call of a test, holding what the previous one committed on a reopen
     * @throws Exception if the store cannot be opened; the test fails with it
     */
    TableStore open(Path directory, CommitHook commit, ReadHook read) throws Exception;
  }

  private final ReadHookStoreFactory factory;
  private final boolean reopen;
  private final UnaryOperator<String> paths;
  private final boolean bytes;
  private final String optOut;

  private TableStoreContractSuite(ReadHookStoreFactory factory, boolean reopen, UnaryOperator<String> paths,
      boolean bytes, String optOut) {
    this.factory = factory;
    this.reopen = reopen;
    this.paths = paths;
    this.bytes = bytes;
    this.optOut = optOut;
  }

  /**
   * The suite for the stores {@code factory} opens, which get no {@link ReadHook}: the read-fault cases fail unless
   * {@link #withoutReadFaults(String)} opts out. Prefer {@link #of(ReadHookStoreFactory)}.
   *
   * @param factory opens the store under test in a test's directory
   * @return the suite, with the defaults: reopen supported, tables under {@code contract/}, rows stored as bytes
   * @throws NullPointerException if {@code factory} is null
   */
  public static TableStoreContractSuite of(StoreFactory factory) {
    Objects.requireNonNull(factory, "factory");
    return of((dir, commit, read) -> factory.open(dir, commit));
  }

  /**
   * The suite for the stores {@code factory} opens with both hooks.
   *
   * @param factory opens the store under test in a test's directory, with both hooks
   * @return the suite, with the defaults: reopen supported, tables under {@code contract/}, rows stored as bytes
   * @throws NullPointerException if {@code factory} is null
   * @since 0.2.0
   */
  public static TableStoreContractSuite of(ReadHookStoreFactory factory) {
    return new TableStoreContractSuite(Objects.requireNonNull(factory, "factory"), true, name -> "contract/" + name,
        true, null);
  }

  /**
   * Whether a store reopened in the same directory sees what the previous one committed (default true).
   *
   * @param supportsReopen false to skip the cases that reopen the store (a store that lives in memory only)
   * @return a new suite with this setting
   */
  public TableStoreContractSuite supportsReopen(boolean supportsReopen) {
    return new TableStoreContractSuite(factory, supportsReopen, paths, bytes, optOut);
  }

  /**
   * Where the contract's table {@code name} lives (default {@code "contract/" + name}).
   *
   * @param tablePath the path of the contract's table of a given short name, e.g. under a YTsaurus directory
   * @return a new suite with these paths
   * @throws NullPointerException if {@code tablePath} is null
   */
  public TableStoreContractSuite tablePaths(UnaryOperator<String> tablePath) {
    return new TableStoreContractSuite(factory, reopen, Objects.requireNonNull(tablePath, "tablePath"), bytes,
        optOut);
  }

  /**
   * Whether the store keeps rows as bytes it decodes on every read and passes through {@link ReadHook#storedBytes}
   * (default true; see {@link TableStoreContract#storesBytes()}).
   *
   * @param storesBytes false for a store that keeps rows as objects: the damaged-bytes cases are skipped, and the
   *     store must never call {@link ReadHook#storedBytes}
   * @return a new suite with this setting
   * @since 0.2.0
   */
  public TableStoreContractSuite storesBytes(boolean storesBytes) {
    return new TableStoreContractSuite(factory, reopen, paths, storesBytes, optOut);
  }

  /**
   * Skips every read-fault case, showing {@code reason} on each: only for a store that cannot take a
   * {@link ReadHook} (see {@link TableStoreContract#readFaultsOptOut()}).
   *
   * @param reason why the store cannot take a read hook, shown on every skipped case
   * @return a new suite that skips the read-fault cases
   * @throws IllegalArgumentException if {@code reason} is blank
   * @since 0.2.0
   */
  public TableStoreContractSuite withoutReadFaults(String reason) {
    if (Objects.requireNonNull(reason, "reason").isBlank()) {
      throw new IllegalArgumentException("say why the store cannot take a read hook");
    }
    return new TableStoreContractSuite(factory, reopen, paths, bytes, reason);
  }

  /** @return the dynamic tests: containers {@code contract} and {@code replay} */
  public List<DynamicNode> tests() {
    List<DynamicNode> contract = new ArrayList<>();
    for (Method m : contractMethods()) {
      // the method source makes build tools (surefire's reports) name the test by its contract method, not by index
      contract.add(DynamicTest.dynamicTest(m.getName(), methodSource(m), () -> inFreshDirectory(dir -> {
        Run run = new Run(dir);
        try {
          m.invoke(run);
        } catch (InvocationTargetException e) {
          throw named(m.getName(), e.getCause());
        } finally {
          run.closeStores();
        }
      })));
    }
    List<DynamicNode> replay = new ArrayList<>();
    replay.add(DynamicTest.dynamicTest("transactional spout, both layouts", () -> inFreshDirectory(dir -> {
      Run run = new Run(dir);
      try {
        TableStoreReplayChecks.run(run::open, reopen, paths.apply("replay/"), SpoutKind.TRANSACTIONAL,
            StateKind.TRANSACTIONAL);
        TableStoreReplayChecks.run(run::open, reopen, paths.apply("replay/"), SpoutKind.TRANSACTIONAL,
            StateKind.OPAQUE);
      } catch (RuntimeException | AssertionError e) {
        throw named("replay: transactional spout, both layouts", e);
      }
    })));
    replay.add(DynamicTest.dynamicTest("opaque spout on the epoch protocol, both layouts",
        () -> inFreshDirectory(dir -> {
          Run run = new Run(dir);
          TableStore probe = run.open(CommitHook.NONE);
          boolean atomic;
          try {
            atomic = probe.capabilities().atomicMultiTableCommit();
          } finally {
            probe.close();
          }
          Assumptions.assumeTrue(atomic, "the store does not declare atomic multi-table commit (epoch protocol)");
          try {
            TableStoreReplayChecks.run(run::open, reopen, paths.apply("replay/"), SpoutKind.OPAQUE,
                StateKind.TRANSACTIONAL);
            TableStoreReplayChecks.run(run::open, reopen, paths.apply("replay/"), SpoutKind.OPAQUE, StateKind.OPAQUE);
          } catch (RuntimeException | AssertionError e) {
            throw named("replay: opaque spout on the epoch protocol, both layouts", e);
          }
        })));
    return List.of(DynamicContainer.dynamicContainer("contract", contract),
        DynamicContainer.dynamicContainer("replay", replay));
  }

  @Override
  public Iterator<DynamicNode> iterator() {
    return tests().iterator();
  }

  /**
   * Build tools that report dynamic tests by index ({@code contract()[1][11]}, as Maven Surefire does by default)
   * still show which contract test failed: its failure is wrapped in a {@link TableStoreContractFailure} naming it.
   * Skips (assumptions) pass through unchanged.
   */
  private static Throwable named(String test, Throwable failure) {
    if (failure instanceof org.opentest4j.TestAbortedException || failure instanceof TableStoreContractFailure) {
      return failure;
    }
    return new TableStoreContractFailure(test, failure);
  }

  private static java.net.URI methodSource(Method m) {
    return java.net.URI.create("method:" + m.getDeclaringClass().getName() + "#" + m.getName() + "()");
  }

  /** The public {@code @Test} methods of {@link TableStoreContract}, by name. */
  static List<Method> contractMethods() {
    List<Method> out = new ArrayList<>();
    for (Method m : TableStoreContract.class.getMethods()) {
      if (m.isAnnotationPresent(Test.class) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0) {
        out.add(m);
      }
    }
    out.sort(Comparator.comparing(Method::getName));
    return out;
  }

  @FunctionalInterface
  private interface InDirectory {
    void run(Path dir) throws Throwable;
  }

  private static void inFreshDirectory(InDirectory body) throws Throwable {
    Path dir = Files.createTempDirectory("epochal-store-contract-");
    try {
      body.run(dir);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }

  /** One contract test's instance: the user's factory over this test's directory. */
  private final class Run extends TableStoreContract {
    private final Path dir;

    Run(Path dir) {
      this.dir = dir;
    }

    TableStore open(CommitHook hook) {
      return createStore(hook, ReadHook.NONE);
    }

    @Override
    protected TableStore createStore(CommitHook hook) {
      return open(hook);
    }

    @Override
    protected TableStore createStore(CommitHook commit, ReadHook read) {
      try {
        return Objects.requireNonNull(factory.open(dir, commit, read), "the store factory returned null");
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("the store factory failed to open " + dir, e);
      }
    }

    @Override
    protected boolean storesBytes() {
      return bytes;
    }

    @Override
    protected Optional<String> readFaultsOptOut() {
      return Optional.ofNullable(optOut);
    }

    @Override
    protected boolean supportsReopen() {
      return reopen;
    }

    @Override
    protected String tablePath(String name) {
      return paths.apply(name);
    }
  }

  @Override
  public String toString() {
    return "TableStoreContractSuite(" + contractMethods().size() + " contract tests + 2 replay checks)";
  }
}
