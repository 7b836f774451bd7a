package io.epochal.testkit;

import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The captured outputs of a {@link PipelineTestDriver}: one {@link CollectingSink} per captured stream, kept across
 * the driver's simulated restarts (what they published stays published), read back as committed values. Not
 * thread-safe: used by the driver's thread.
 */
final class DriverOutputs {
  private final Map<String, CollectingSink<Object>> sinks = new LinkedHashMap<>();
  private final Map<String, Integer> consumed = new HashMap<>();

  /** One captured value with its batch. */
  private record Captured(long txid, Object value) {
  }

  /** @return the capturing side handed to one incarnation's topology: each name may be captured once */
  PipelineTestDriver.TestOutputs forIncarnation() {
    Set<String> declared = new HashSet<>();
    return new PipelineTestDriver.TestOutputs() {
      @Override
      public <R> void capture(String output, Stream<R> stream) {
        Objects.requireNonNull(output, "name");
        Objects.requireNonNull(stream, "stream");
        if (!declared.add(output)) {
          throw new IllegalArgumentException("output '" + output + "' is already captured");
        }
        CollectingSink<Object> sink = sinks.computeIfAbsent(output, CollectingSink::new);
        @SuppressWarnings("unchecked")
        Stream<Object> records = (Stream<Object>) stream;
        records.to(output, sink);
      }
    };
  }

  /** The process died: every sink drops what it staged and never published. */
  void discardStaged() {
    for (CollectingSink<Object> sink : sinks.values()) {
      sink.discardStaged();
    }
  }

  @SuppressWarnings("unchecked")
  <R> List<R> all(String name) {
    List<R> out = new ArrayList<>();
    for (Captured c : captured(name)) {
      out.add((R) c.value());
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  <R> List<R> ofBatch(String name, long txid) {
    List<R> out = new ArrayList<>();
    for (Captured c : captured(name)) {
      if (c.txid() == txid) {
        out.add((R) c.value());
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  <R> List<R> unread(String name) {
    List<Captured> all = captured(name);
    int from = consumed.getOrDefault(name, 0);
    consumed.put(name, all.size());
    List<R> out = new ArrayList<>();
    for (Captured c : all.subList(from, all.size())) {
      out.add((R) c.value());
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  <K, V> Map<K, V> latestPerKey(String name) {
    Map<K, V> out = new LinkedHashMap<>();
    for (Captured c : captured(name)) {
      KeyValue<K, V> kv = (KeyValue<K, V>) c.value();
      out.put(kv.key(), kv.value());
    }
    boolean comparable = out.keySet().stream().allMatch(k -> k instanceof Comparable);
    if (comparable) {
      return new TreeMap<>(out);
    }
    return out;
  }

  private List<Captured> captured(String name) {
    Objects.requireNonNull(name, "name");
    CollectingSink<Object> sink = sinks.get(name);
    if (sink == null) {
      throw new IllegalArgumentException("no stream is captured as '" + name + "'; captured: " + sinks.keySet());
    }
    List<Captured> out = new ArrayList<>();
    for (CollectingSink.Output<Object> o : sink.committed()) {
      out.add(new Captured(o.txid(), o.value()));
    }
    return out;
  }
}
