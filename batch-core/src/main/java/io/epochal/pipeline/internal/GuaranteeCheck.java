package io.epochal.pipeline.internal;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.errors.StagingUnavailableException;
import io.epochal.pipeline.Guarantee;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.state.Staging;
import io.epochal.state.StateKind;
import io.epochal.store.CheckpointStore;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a pipeline delivers exactly-once, as data: one {@link Rule} per (spout kind, state kind, epoch atomicity),
 * saying either that the pairing is exactly-once or which {@link Reason} it is not. The delivery mode (the requested
 * {@link Guarantee}) then decides: {@code EXACTLY_ONCE} refuses a pairing that is not, a weaker guarantee is an
 * explicit opt-in that only logs the reason. Stateless and thread-safe. Internal.
 */
public final class GuaranteeCheck {
  private static final Logger LOG = LoggerFactory.getLogger(GuaranteeCheck.class);

  private GuaranteeCheck() {
  }

  /** Why a pairing is not exactly-once; each renders today's user-facing message with the fix. */
  public enum Reason {
    /** A non-transactional state on the per-key protocol applies a replayed batch twice. */
    NON_TRANSACTIONAL_STATE {
      @Override
      String message(String spout, String state) {
        return spout + " writes " + state + ", which applies a replayed batch twice on the "
            + "per-key protocol. Fix: use a TransactionalMap (with a transactional spout) or an OpaqueMap, "
            + "or a store that commits state with the epoch atomically; or opt in to AT_LEAST_ONCE.";
      }
    },
    /** A read-only state cannot be written at all. */
    READ_ONLY_STATE {
      @Override
      String message(String spout, String state) {
        return state + " is read-only and cannot be written. Fix: write a map state instead.";
      }
    },
    /** A non-transactional spout cannot replay a failed batch. */
    NON_TRANSACTIONAL_SPOUT {
      @Override
      String message(String spout, String state) {
        return spout + " cannot replay a failed batch, so " + state + " may lose or change it. "
            + "Fix: use a transactional or opaque spout, or opt in to AT_MOST_ONCE or AT_LEAST_ONCE.";
      }
    },
    /** An opaque spout re-cuts a replay that a transactional state then skips or counts twice. */
    OPAQUE_SPOUT_TRANSACTIONAL_STATE {
      @Override
      String message(String spout, String state) {
        return spout + " may re-cut a replayed batch, and " + state + " skips keys it already "
            + "wrote under that txid (losing records) or counts records twice across txids. Fix: use a "
            + "transactional spout, or a store that commits state with the epoch atomically (RocksDB or "
            + "YTsaurus epoch commit); or opt in to AT_LEAST_ONCE.";
      }
    },
    /** An opaque spout re-cuts a replay, and an opaque state on the per-key protocol keeps dropped keys' values. */
    OPAQUE_SPOUT_PER_KEY {
      @Override
      String message(String spout, String state) {
        return spout + " may re-cut a replayed batch, and on the per-key (Trident) protocol "
            + state + " keeps the failed attempt's value for every key the re-cut batch no longer contains, "
            + "so the next batch counts those records again (Storm Trident has the same hole). Fix: use a "
            + "transactional spout, or a store that commits state with the epoch atomically (RocksDB or "
            + "YTsaurus epoch commit, or the in-memory table store); or opt in to AT_LEAST_ONCE.";
      }
    };

    /**
     * @param spout the spout as {@code spout 'name' (KIND)}
     * @param state the state as {@code state 'name' (description)}
     */
    abstract String message(String spout, String state);
  }

  /**
   * One row of the table.
   *
   * @param spout the spout's replay promise
   * @param state the state's replay behaviour
   * @param atomic whether the state commits atomically with the epoch (the epoch protocol)
   * @param reason empty when the pairing is exactly-once
   */
  public record Rule(SpoutKind spout, StateKind state, boolean atomic, Optional<Reason> reason) {
    /**
     * Checks that no component is null.
     *
     * @param spout the spout's replay promise, not null
     * @param state the state's replay behaviour, not null
     * @param atomic whether the state commits atomically with the epoch
     * @param reason why the pairing is not exactly-once; empty when it is
     */
    public Rule {
      Objects.requireNonNull(spout, "spout");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The table: every (spout kind, state kind, atomicity) exactly once. */
  public static final List<Rule> RULES = List.of(
      ok(SpoutKind.TRANSACTIONAL, StateKind.TRANSACTIONAL, false),
      ok(SpoutKind.TRANSACTIONAL, StateKind.TRANSACTIONAL, true),
      ok(SpoutKind.TRANSACTIONAL, StateKind.OPAQUE, false),
      ok(SpoutKind.TRANSACTIONAL, StateKind.OPAQUE, true),
      not(SpoutKind.TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE),
      ok(SpoutKind.TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, true),
      not(SpoutKind.TRANSACTIONAL, StateKind.READ_ONLY, false, Reason.READ_ONLY_STATE),
      not(SpoutKind.TRANSACTIONAL, StateKind.READ_ONLY, true, Reason.READ_ONLY_STATE),

      not(SpoutKind.OPAQUE, StateKind.TRANSACTIONAL, false, Reason.OPAQUE_SPOUT_TRANSACTIONAL_STATE),
      ok(SpoutKind.OPAQUE, StateKind.TRANSACTIONAL, true),
      not(SpoutKind.OPAQUE, StateKind.OPAQUE, false, Reason.OPAQUE_SPOUT_PER_KEY),
      ok(SpoutKind.OPAQUE, StateKind.OPAQUE, true),
      not(SpoutKind.OPAQUE, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE),
      ok(SpoutKind.OPAQUE, StateKind.NON_TRANSACTIONAL, true),
      not(SpoutKind.OPAQUE, StateKind.READ_ONLY, false, Reason.READ_ONLY_STATE),
      not(SpoutKind.OPAQUE, StateKind.READ_ONLY, true, Reason.READ_ONLY_STATE),

      not(SpoutKind.NON_TRANSACTIONAL, StateKind.TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_SPOUT),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.TRANSACTIONAL, true, Reason.NON_TRANSACTIONAL_SPOUT),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.OPAQUE, false, Reason.NON_TRANSACTIONAL_SPOUT),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.OPAQUE, true, Reason.NON_TRANSACTIONAL_SPOUT),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, true, Reason.NON_TRANSACTIONAL_SPOUT),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.READ_ONLY, false, Reason.READ_ONLY_STATE),
      not(SpoutKind.NON_TRANSACTIONAL, StateKind.READ_ONLY, true, Reason.READ_ONLY_STATE));

  private static final Map<SpoutKind, Map<StateKind, Rule[]>> INDEX = index(RULES);

  private static Rule ok(SpoutKind spout, StateKind state, boolean atomic) {
    return new Rule(spout, state, atomic, Optional.empty());
  }

  private static Rule not(SpoutKind spout, StateKind state, boolean atomic, Reason reason) {
    return new Rule(spout, state, atomic, Optional.of(reason));
  }

  private static Map<SpoutKind, Map<StateKind, Rule[]>> index(List<Rule> rules) {
    Map<SpoutKind, Map<StateKind, Rule[]>> index = new EnumMap<>(SpoutKind.class);
    for (Rule r : rules) {
      Rule[] cell = index.computeIfAbsent(r.spout(), k -> new EnumMap<>(StateKind.class))
          .computeIfAbsent(r.state(), k -> new Rule[2]);
      int at = r.atomic() ? 1 : 0;
      if (cell[at] != null) {
        throw new IllegalStateException("guarantee table has two rules for " + r + " and " + cell[at]);
      }
      cell[at] = r;
    }
    for (SpoutKind s : SpoutKind.values()) {
      for (StateKind k : StateKind.values()) {
        Rule[] cell = index.getOrDefault(s, Map.of()).get(k);
        if (cell == null || cell[0] == null || cell[1] == null) {
          throw new IllegalStateException("guarantee table misses " + s + " x " + k);
        }
      }
    }
    return index;
  }

  /**
   * The table's rule for one pairing.
   *
   * @param spout the spout's replay promise
   * @param state the state's replay behaviour
   * @param atomic whether the state commits atomically with the epoch
   * @return the row of the table for that pairing (every pairing has one)
   */
  public static Rule rule(SpoutKind spout, StateKind state, boolean atomic) {
    return INDEX.get(spout).get(state)[atomic ? 1 : 0];
  }

  /**
   * Why one pairing is not exactly-once, in the engine's words, for engines that pair spouts and states themselves
   * (Epochal state on Storm).
   *
   * @param spoutKind the spout's replay promise
   * @param stateKind the state's replay behaviour
   * @param atomic whether the state commits its writes atomically with the batch (the epoch protocol)
   * @param spout the spout as {@code spout 'name' (KIND)}
   * @param state the state as {@code state 'name' (description)}
   * @return empty when the pairing is exactly-once, else the reason with its fix
   */
  public static Optional<String> whyNot(SpoutKind spoutKind, StateKind stateKind, boolean atomic, String spout,
      String state) {
    return rule(spoutKind, stateKind, atomic).reason().map(r -> r.message(spout, state));
  }

  /**
   * The message of an {@code EXACTLY_ONCE} refusal of {@code what} (e.g. {@code Pipeline 'wc'}).
   *
   * @param what what is refused
   * @param why the reason, as {@link #whyNot} or {@link #whyNotExactlyOnce} gave it
   * @return {@code what + " cannot deliver EXACTLY_ONCE: " + why}
   */
  public static String refusal(String what, String why) {
    return what + " cannot deliver EXACTLY_ONCE: " + why;
  }

  /**
   * Computes why an {@code EXACTLY_ONCE} pipeline could not deliver it: the first written state (in declaration
   * order) whose pairing with one of the spouts (in declaration order) is not exactly-once.
   *
   * @param pipeline the pipeline's name, for the checkpoint store's staging
   * @param graph the built graph
   * @param checkpoints the pipeline's checkpoint store, which decides which states commit atomically
   * @return empty when exactly-once is deliverable, else the reason naming the spout and the state
   */
  public static Optional<String> whyNotExactlyOnce(String pipeline, Graph.Snapshot graph,
      CheckpointStore checkpoints) {
    for (Node node : graph.nodes()) {
      if (!(node instanceof Node.StateNode s) || !s.writes) {
        continue;
      }
      for (Spout<?, ?> spout : feeding(s, graph.spouts())) {
        Optional<Reason> reason = rule(spout.kind(), s.factory.kind(), atomic(pipeline, s, checkpoints)).reason();
        if (reason.isPresent()) {
          return Optional.of(reason.get().message("spout '" + spout.name() + "' (" + spout.kind() + ")",
              "state '" + s.stateName + "' (" + s.factory.describe() + ")"));
        }
      }
    }
    return Optional.empty();
  }

  /** The spouts whose records reach {@code node} (through its parents and merges), in declaration order. */
  static List<Spout<?, ?>> feeding(Node node, List<Spout<?, ?>> spouts) {
    java.util.BitSet reached = new java.util.BitSet();
    java.util.ArrayDeque<Node> todo = new java.util.ArrayDeque<>(List.of(node));
    while (!todo.isEmpty()) {
      Node n = todo.pop();
      if (n instanceof Node.Source src) {
        reached.set(src.index);
      }
      if (n.parent != null) {
        todo.push(n.parent);
      }
      if (n instanceof Node.Merge m) {
        todo.push(m.other);
      }
    }
    List<Spout<?, ?>> out = new ArrayList<>();
    reached.stream().forEach(i -> out.add(spouts.get(i)));
    return out;
  }

  /**
   * Whether the writes of state node {@code s} are covered by the epoch's durable commit: its factory needs a staging
   * that the pipeline's checkpoint store offers and that is {@link Staging#atomic() atomic}.
   */
  static boolean atomic(String pipeline, Node.StateNode s, CheckpointStore checkpoints) {
    Optional<Class<? extends Staging>> type = s.factory.staging();
    return type.isPresent() && checkpoints.staging(pipeline, type.get()).map(Staging::atomic).orElse(false);
  }

  /**
   * @throws StagingUnavailableException for the first written state (in declaration order) whose factory needs a
   *     staging the pipeline's checkpoint store does not offer (its rows would never become durable)
   */
  static void requireStaging(String pipeline, Graph.Snapshot graph, CheckpointStore checkpoints) {
    for (Node node : graph.nodes()) {
      if (node instanceof Node.StateNode s && s.writes) {
        Optional<Class<? extends Staging>> type = s.factory.staging();
        if (type.isPresent() && checkpoints.staging(pipeline, type.get()).isEmpty()) {
          throw new StagingUnavailableException(pipeline, s.stateName, type.get().getSimpleName(),
              checkpoints.describe());
        }
      }
    }
  }

  /**
   * Validates the requested guarantee (the delivery mode); a weaker guarantee than exactly-once that is requested
   * where exactly-once is not deliverable is logged as a warning.
   *
   * @param pipeline the pipeline's name
   * @param requested the guarantee the builder asked for
   * @param graph the built graph
   * @param checkpoints the pipeline's checkpoint store
   * @throws StagingUnavailableException if a state needs a staging the pipeline's checkpoint store does not offer
   * @throws GuaranteeNotDeliverableException if {@code EXACTLY_ONCE} is requested but not deliverable
   */
  public static void validate(String pipeline, Guarantee requested, Graph.Snapshot graph,
      CheckpointStore checkpoints) {
    requireStaging(pipeline, graph, checkpoints);
    Optional<String> why = whyNotExactlyOnce(pipeline, graph, checkpoints);
    if (why.isEmpty()) {
      return;
    }
    if (requested == Guarantee.EXACTLY_ONCE) {
      throw new GuaranteeNotDeliverableException(refusal("Pipeline '" + pipeline + "'", why.get()));
    }
    LOG.warn("pipeline '{}' runs {} by explicit opt-in; it is not exactly-once because: {}", pipeline, requested,
        why.get());
    if (requested == Guarantee.AT_LEAST_ONCE) {
      for (Spout<?, ?> spout : graph.spouts()) {
        if (spout.kind() == SpoutKind.NON_TRANSACTIONAL) {
          LOG.warn("pipeline '{}': spout '{}' is non-transactional and cannot replay a failed batch, so under "
              + "AT_LEAST_ONCE the records of a failed attempt may still be lost", pipeline, spout.name());
        }
      }
    }
  }
}
