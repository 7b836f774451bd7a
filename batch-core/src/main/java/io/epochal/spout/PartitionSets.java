package io.epochal.spout;

import io.epochal.errors.SourceChangedException;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/** Checks shared by the partitioned adapters. */
final class PartitionSets {

  private PartitionSets() {
  }

  /**
   * The current partitions in partition order, checked: no null or duplicate name, and every partition named in
   * {@code previous} still present.
   */
  static SortedSet<String> current(String spout, List<String> partitions, PartitionedMetadata<?> previous, long txid) {
    Objects.requireNonNull(partitions, () -> "Spout " + spout + " returned null partitions()");
    TreeSet<String> sorted = new TreeSet<>();
    for (String p : partitions) {
      Objects.requireNonNull(p, () -> "Spout " + spout + " lists a null partition");
      if (!sorted.add(p)) {
        throw new IllegalStateException("Spout " + spout + " lists partition " + p + " twice: " + partitions);
      }
    }
    for (String known : previous.partitions().keySet()) {
      if (!sorted.contains(known)) {
        throw new SourceChangedException("Spout " + spout + ": partition " + known
            + " has metadata from an earlier batch (" + previous.partitions().get(known)
            + ") but is no longer listed; cannot build txid " + txid + ". Current partitions: " + partitions);
      }
    }
    return sorted;
  }
}
