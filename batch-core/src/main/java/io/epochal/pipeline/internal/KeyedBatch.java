package io.epochal.pipeline.internal;

import java.util.ArrayList;
import java.util.List;

/** A batch's records split by key partition, each record with its key (same index in both lists). */
final class KeyedBatch {
  final List<List<Object>> keys;
  final List<List<Object>> records;

  KeyedBatch(int partitions) {
    this(partitions, 10);
  }

  /** @param expectedPerPartition the initial capacity of each partition's lists */
  KeyedBatch(int partitions, int expectedPerPartition) {
    keys = new ArrayList<>(partitions);
    records = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      keys.add(new ArrayList<>(expectedPerPartition));
      records.add(new ArrayList<>(expectedPerPartition));
    }
  }

  int partitions() {
    return keys.size();
  }

  /** @return every record, partition by partition */
  List<Object> flat() {
    int n = 0;
    for (List<Object> p : records) {
      n += p.size();
    }
    List<Object> out = new ArrayList<>(n);
    for (List<Object> p : records) {
      out.addAll(p);
    }
    return out;
  }
}
