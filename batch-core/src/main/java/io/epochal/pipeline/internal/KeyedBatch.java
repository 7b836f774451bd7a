package io.epochal.pipeline.internal;

import java.util.ArrayList;
import java.util.List;

/** A batch's records split by key partition, each record with its key (same index in both lists). */
final class KeyedBatch {
  final List<List<Object>> keys;
  final List<List<Object>> records;

  KeyedBatch(int partitions) {
    keys = new ArrayList<>(partitions);
    records = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      keys.add(new ArrayList<>());
      records.add(new ArrayList<>());
    }
  }

  int partitions() {
    return keys.size();
  }
}
