package io.epochal.pipeline.internal;

import java.util.ArrayList;
import java.util.List;

/** A batch's records split by key partition, each record with its key (same index in both lists). */
final class KeyedBatch {
  final List<Object>[] keys;
  final List<Object>[] records;

  @SuppressWarnings("unchecked")
  KeyedBatch(int partitions) {
    keys = new List[partitions];
    records = new List[partitions];
    for (int p = 0; p < partitions; p++) {
      keys[p] = new ArrayList<>();
      records[p] = new ArrayList<>();
    }
  }

  int partitions() {
    return keys.length;
  }
}
