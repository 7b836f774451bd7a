package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.store.table.internal.InMemoryTableStore;
import java.util.Objects;

/**
 * Factories of the built-in {@link TableStore}s. Durable stores live in their own modules
 * ({@code RocksDbTableStore.builder(dir)}, the YTsaurus store).
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableStores {
  private TableStores() {
  }

  /**
   * A new, empty in-memory store with atomic multi-table commit and fencing, for tests and examples. Each call
   * returns an independent store; share the instance between pipeline runs to model a restart. Thread-safe.
   *
   * @return the store, named {@code "memory"}, with no fault hook
   */
  public static TableStore inMemory() {
    return inMemoryBuilder().build();
  }

  /**
   * Starts building an in-memory store, to switch capabilities off or inject commit or read faults.
   *
   * @return a builder with no option set
   */
  public static InMemoryBuilder inMemoryBuilder() {
    return new InMemoryBuilder();
  }

  /**
   * Builds an in-memory {@link TableStore}. Each option may be set once ({@link IllegalStateException} otherwise).
   * Not thread-safe; the built store is.
   *
   * @since 0.1.0
   */
  public static final class InMemoryBuilder {
    private String name;
    private Boolean atomic;
    private Boolean fencing;
    private CommitHook hook;
    private ReadHook readHook;

    private InMemoryBuilder() {
    }

    /**
     * Sets the name shown in descriptions (default {@code "memory"}).
     *
     * @param name the name, e.g. to tell two stores of one test apart in messages
     * @return this builder
     * @throws IllegalStateException if the name was already set
     */
    public InMemoryBuilder name(String name) {
      requireUnset(this.name, "name");
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Whether commits are atomic across tables (default true). With false the store declares and behaves as a store
     * with per-table atomicity only (a failure mid-commit leaves earlier tables written), so the coordinator uses
     * Trident's per-key protocol over it.
     *
     * @param atomic whether a commit applies the writes of all tables at once
     * @return this builder
     * @throws IllegalStateException if the option was already set
     */
    public InMemoryBuilder atomicMultiTableCommit(boolean atomic) {
      requireUnset(this.atomic, "atomicMultiTableCommit");
      this.atomic = atomic;
      return this;
    }

    /**
     * Sets whether leases fence commits (default true).
     *
     * @param fencing whether a transaction begun under a taken-over lease fails its commit; with false the lease is
     *     only recorded
     * @return this builder
     * @throws IllegalStateException if the option was already set
     */
    public InMemoryBuilder fencing(boolean fencing) {
      requireUnset(this.fencing, "fencing");
      this.fencing = fencing;
      return this;
    }

    /**
     * Sets a fault-injection hook called during commits (default {@link CommitHook#NONE}).
     *
     * @param hook called once per written table during every commit; an exception it throws fails the commit
     * @return this builder
     * @throws IllegalStateException if a hook was already set
     */
    public InMemoryBuilder commitHook(CommitHook hook) {
      requireUnset(this.hook, "commitHook");
      this.hook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * A fault-injection hook on the read path (default {@link ReadHook#NONE}): every lookup and scan calls
     * {@link ReadHook#beforeRead} with the table's path before reading, and an exception it throws reaches the caller.
     * The store keeps rows as objects, not bytes, so it never calls {@link ReadHook#storedBytes}.
     *
     * @param readHook called before every lookup and scan
     * @return this builder
     * @throws IllegalStateException if a read hook was already set
     */
    public InMemoryBuilder readHook(ReadHook readHook) {
      requireUnset(this.readHook, "readHook");
      this.readHook = Objects.requireNonNull(readHook, "readHook");
      return this;
    }

    /** @return a new store; the builder is unchanged and may build again */
    public TableStore build() {
      return new InMemoryTableStore(name == null ? "memory" : name,
          new StoreCapabilities(atomic == null || atomic, fencing == null || fencing),
          hook == null ? CommitHook.NONE : hook, readHook == null ? ReadHook.NONE : readHook);
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }
  }
}
