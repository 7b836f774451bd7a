package io.epochal.trident.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.spout.SpoutKind;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.storm.drpc.DRPCSpout;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.spout.BatchSpoutExecutor;
import org.apache.storm.trident.spout.ICommitterTridentSpout;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.spout.OpaquePartitionedTridentSpoutExecutor;
import org.apache.storm.trident.spout.PartitionedTridentSpoutExecutor;
import org.apache.storm.trident.spout.RichSpoutBatchExecutor;
import org.apache.storm.trident.spout.TridentSpoutExecutor;
import org.apache.storm.trident.topology.TridentBoltExecutor;
import org.apache.storm.utils.Utils;

/**
 * The Trident spouts whose batches reach a component of a running Storm topology: the spout emitter bolts found by
 * walking the component's inputs upstream in the topology the worker runs, each classified as the Epochal engine
 * classifies spouts. Storm keeps the spouts inside its executor wrappers in package-private fields, read here by
 * reflection (checked against storm-client 2.8.3). Stateless and thread-safe.
 */
public final class TopologySpouts {
  private TopologySpouts() {
  }

  /**
   * One spout feeding the component.
   *
   * @param component the spout's emitter bolt (the stream name Trident gave it)
   * @param kind the spout's kind
   * @param unguardedOpaquePartitioned an {@code IOpaquePartitionedTridentSpout} not wrapped by the STORM-1557 guard
   * @param spout the spout's class
   */
  public record Feeding(String component, SpoutKind kind, boolean unguardedOpaquePartitioned, String spout) {
  }

  /**
   * Finds the Trident spouts upstream of a component.
   *
   * @param context the context Storm gave the component (a state partition's), whose raw topology is walked from the
   *     component's inputs upstream
   * @return the spouts feeding the context's component, in component order; DRPC spouts (queries) are left out
   */
  public static List<Feeding> feeding(TopologyContext context) {
    StormTopology topology = context.getRawTopology();
    Map<String, Bolt> bolts = topology.get_bolts();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> todo = new ArrayDeque<>(List.of(context.getThisComponentId()));
    List<Feeding> out = new ArrayList<>();
    while (!todo.isEmpty()) {
      String c = todo.pop();
      Bolt bolt = bolts.get(c);
      if (!seen.add(c) || bolt == null) {
        continue;
      }
      for (GlobalStreamId in : bolt.get_common().get_inputs().keySet()) {
        todo.push(in.get_componentId());
      }
      spoutOf(c, bolt.get_bolt_object()).flatMap(s -> classify(c, s)).ifPresent(out::add);
    }
    out.sort(java.util.Comparator.comparing(Feeding::component));
    return out;
  }

  private static Optional<ITridentSpout<?>> spoutOf(String component, ComponentObject object) {
    if (!object.is_set_serialized_java()) {
      return Optional.empty();
    }
    Object bolt = Utils.javaDeserialize(object.get_serialized_java(), Object.class);
    if (!(bolt instanceof TridentBoltExecutor)) {
      return Optional.empty();
    }
    Object inner = field(bolt, TridentBoltExecutor.class, "bolt", component);
    if (!(inner instanceof TridentSpoutExecutor)) {
      return Optional.empty();
    }
    return Optional.of((ITridentSpout<?>) field(inner, TridentSpoutExecutor.class, "spout", component));
  }

  private static Optional<Feeding> classify(String component, ITridentSpout<?> spout) {
    if (spout instanceof OpaquePartitionedTridentSpoutExecutor) {
      Object user = field(spout, OpaquePartitionedTridentSpoutExecutor.class, "spout", component);
      return Optional.of(new Feeding(component, SpoutKind.OPAQUE, !(user instanceof GuardedOpaqueSpout),
          name(user)));
    }
    if (spout instanceof PartitionedTridentSpoutExecutor) {
      Object user = field(spout, PartitionedTridentSpoutExecutor.class, "spout", component);
      return Optional.of(new Feeding(component, SpoutKind.TRANSACTIONAL, false, name(user)));
    }
    if (spout instanceof BatchSpoutExecutor) {
      // Trident replays an IBatchSpout's batch by its id; Storm calls such a spout transactional.
      Object user = field(spout, BatchSpoutExecutor.class, "spout", component);
      return Optional.of(new Feeding(component, SpoutKind.TRANSACTIONAL, false, name(user)));
    }
    if (spout instanceof RichSpoutBatchExecutor) {
      Object user = field(spout, RichSpoutBatchExecutor.class, "spout", component);
      return user instanceof DRPCSpout ? Optional.empty()
          : Optional.of(new Feeding(component, SpoutKind.NON_TRANSACTIONAL, false, name(user)));
    }
    SpoutKind kind = spout instanceof ICommitterTridentSpout<?> ? SpoutKind.OPAQUE : SpoutKind.TRANSACTIONAL;
    return Optional.of(new Feeding(component, kind, false, name(spout)));
  }

  private static String name(Object spout) {
    return spout == null ? "null" : spout.getClass().getName();
  }

  private static Object field(Object owner, Class<?> type, String name, String component) {
    try {
      Field f = type.getDeclaredField(name);
      f.setAccessible(true);
      return f.get(owner);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new EpochalException("cannot read field " + name + " of Storm's " + type.getName() + " in component "
          + component + " to check the spouts feeding an Epochal state (written against storm-client 2.8.3): " + e,
          e, false, ErrorContext.NONE);
    }
  }
}
