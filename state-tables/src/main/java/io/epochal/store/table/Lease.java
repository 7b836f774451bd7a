package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.Objects;

/**
 * A writer's claim on a named resource (for the coordinator: its pipeline), returned by
 * {@link TableStore#acquireLease}. Each acquisition takes the lease over and increases its {@code generation}; a
 * transaction begun under a lease whose generation is no longer the current one cannot commit (fencing: it fails with
 * {@link io.epochal.errors.LeaseLostException} and changes nothing).
 *
 * <p>Immutable and thread-safe. A value: two leases are equal when name, owner and generation are.
 *
 * @param name the leased resource, e.g. a pipeline name
 * @param owner who holds it (a worker id, used in error messages)
 * @param generation the acquisition count of this lease name in its store, at least 1; higher is newer
 * @since 0.1.0
 */
@Evolving
public record Lease(String name, String owner, long generation) {

  /**
   * Validates a lease; stores make leases in {@link TableStore#acquireLease}, callers only compare or print them.
   *
   * @param name the leased resource, e.g. a pipeline name
   * @param owner who holds it (a worker id, used in error messages)
   * @param generation the acquisition count of this lease name in its store, at least 1
   * @throws NullPointerException if {@code name} or {@code owner} is null
   * @throws IllegalArgumentException if {@code generation < 1}
   */
  public Lease {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    if (generation < 1) {
      throw new IllegalArgumentException("lease generation must be at least 1, was " + generation);
    }
  }

  @Override
  public String toString() {
    return "lease '" + name + "' generation " + generation + " held by " + owner;
  }
}
