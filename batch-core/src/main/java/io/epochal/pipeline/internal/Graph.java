package io.epochal.pipeline.internal;

import io.epochal.spout.Spout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The mutable graph a {@code PipelineBuilder} declares into. Node ids are positions in {@link #nodes}.
 * Not thread-safe (builders are used by one thread).
 */
public final class Graph {
  final List<Node> nodes = new ArrayList<>();
  final Map<String, Node.StateNode> writers = new HashMap<>();
  final Map<String, Node.SinkNode> sinks = new HashMap<>();
  Spout<?, ?> spout;
  int partitions = 1;

  /** Sets the partition count used by groupBy nodes declared from now on; the builder fixes it before sources. */
  public void partitions(int partitions) {
    this.partitions = partitions;
  }

  /** Declares the single source. */
  public <T> StreamView<T> source(Spout<T, ?> spout) {
    Objects.requireNonNull(spout, "spout");
    if (this.spout != null) {
      throw new IllegalStateException("the pipeline already has source '" + this.spout.name()
          + "'; one source per pipeline (merge inputs in one spout)");
    }
    this.spout = spout;
    return new StreamView<>(this, add(new Node.Source(nodes.size(), spout.name())));
  }

  <N extends Node> N add(N node) {
    nodes.add(node);
    if (node instanceof Node.StateNode s && s.writes) {
      Node.StateNode previous = writers.putIfAbsent(s.stateName, s);
      if (previous != null) {
        nodes.remove(nodes.size() - 1);
        throw new IllegalArgumentException("state '" + s.stateName + "' is already written by " + previous
            + "; each state has exactly one writer in a pipeline");
      }
    }
    if (node instanceof Node.SinkNode s) {
      Node.SinkNode previous = sinks.putIfAbsent(s.sinkName, s);
      if (previous != null) {
        nodes.remove(nodes.size() - 1);
        throw new IllegalArgumentException("sink '" + s.sinkName + "' is already declared by " + previous
            + "; sink names are unique in a pipeline");
      }
    }
    return node;
  }

  int nextId() {
    return nodes.size();
  }

  Node.StateNode writer(String stateName) {
    Node.StateNode node = writers.get(stateName);
    if (node == null) {
      throw new IllegalArgumentException("state '" + stateName + "' is not declared in this pipeline");
    }
    return node;
  }

  /** An immutable copy for a built pipeline. */
  public Snapshot snapshot() {
    if (spout == null) {
      throw new IllegalStateException("the pipeline has no source: call source(spout) first");
    }
    return new Snapshot(List.copyOf(nodes), spout, partitions);
  }

  /** The graph as built: nodes in declaration order, the source spout, the partition count. */
  public record Snapshot(List<Node> nodes, Spout<?, ?> spout, int partitions) {
  }
}
