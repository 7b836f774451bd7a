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
  final List<Spout<?, ?>> spouts = new ArrayList<>();
  int partitions = 1;

  /**
   * Sets the partition count used by groupBy nodes declared from now on; the builder fixes it before sources.
   *
   * @param partitions the partition count, at least 1 (checked by the builder)
   */
  public void partitions(int partitions) {
    this.partitions = partitions;
  }

  /**
   * Declares a source; a pipeline may have several (each txid then holds one batch of each, committed together).
   *
   * @param spout the source's spout, not null
   * @param <T> the record type
   * @return the stream of the spout's records
   * @throws IllegalArgumentException if another source has the same spout name
   */
  public <T> StreamView<T> source(Spout<T, ?> spout) {
    Objects.requireNonNull(spout, "spout");
    for (Spout<?, ?> s : spouts) {
      if (s.name().equals(spout.name())) {
        throw new IllegalArgumentException("the pipeline already has a source named '" + spout.name()
            + "'; spout names are unique in a pipeline");
      }
    }
    spouts.add(spout);
    return new StreamView<>(this, add(new Node.Source(nodes.size(), spouts.size() - 1, spout.name())));
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

  /**
   * An immutable copy for a built pipeline.
   *
   * @return the nodes and spouts declared so far, and the partition count
   * @throws IllegalStateException if no source was declared
   */
  public Snapshot snapshot() {
    if (spouts.isEmpty()) {
      throw new IllegalStateException("the pipeline has no source: call source(spout) first");
    }
    return new Snapshot(List.copyOf(nodes), List.copyOf(spouts), partitions);
  }

  /** The graph as built: nodes in declaration order, the source spouts in declaration order, the partition count. */
  public record Snapshot(List<Node> nodes, List<Spout<?, ?>> spouts, int partitions) {
  }
}
