package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Guarantees;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.Config;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.trident.Stream;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/**
 * The pairing check of Epochal state on Storm, run where Storm runs it: {@code makeState} with the worker's
 * {@link TopologyContext} of the state's bolt in the {@link StormTopology} that {@code TridentTopology.build()} made.
 */
class StormPairingCheckTest {
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final Map<String, TableStore> STORES = new ConcurrentHashMap<>();

  private static StormStateBuilder state() {
    String name = "pair-" + NAMES.incrementAndGet();
    STORES.put(name, TableStores.inMemory());
    return EpochalTrident.stormState(name, () -> STORES.get(name), "wc");
  }

  /** A plain Storm spout: Trident runs it as a non-transactional batch spout. */
  static final class Plain extends BaseRichSpout {
    private static final long serialVersionUID = 1L;

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
    }

    @Override
    public void nextTuple() {
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
      declarer.declare(new Fields("sentence"));
    }
  }

  private static List<List<String>> data() {
    return TestPartitionedSpouts.split(Sentences.make(20, 3), 2);
  }

  /** Builds spout → split → groupBy → persistentAggregate(factory) and makes partition 0 as a Storm worker does. */
  private static State prepare(Stream stream, TridentTopology topology, StateFactory factory, int pending) {
    stream.each(new Fields("sentence"), new Split(), new Fields("word")).groupBy(new Fields("word"))
        .persistentAggregate(factory, new Count(), new Fields("count"));
    StormTopology built = topology.build();
    Map<String, Object> conf = new HashMap<>();
    conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, pending);
    conf.put(Config.STORM_ID, "wc-" + NAMES.incrementAndGet());
    return factory.makeState(conf, context(built, sink(built), conf), 0, 1);
  }

  /** The bolt no other (non-system) bolt consumes: the state's. */
  private static String sink(StormTopology topology) {
    Set<String> consumed = new HashSet<>();
    for (Bolt b : topology.get_bolts().values()) {
      for (GlobalStreamId in : b.get_common().get_inputs().keySet()) {
        consumed.add(in.get_componentId());
      }
    }
    List<String> sinks = new ArrayList<>();
    for (String c : topology.get_bolts().keySet()) {
      if (!c.startsWith("$") && !consumed.contains(c)) {
        sinks.add(c);
      }
    }
    assertEquals(1, sinks.size(), "one sink bolt in " + topology.get_bolts().keySet());
    return sinks.get(0);
  }

  private static TopologyContext context(StormTopology topology, String component, Map<String, Object> conf) {
    Map<Integer, String> taskToComponent = new HashMap<>(Map.of(1, component));
    Map<String, List<Integer>> componentTasks = new HashMap<>(Map.of(component, List.of(1)));
    return new TopologyContext(topology, conf, taskToComponent, componentTasks, new HashMap<>(), new HashMap<>(),
        (String) conf.get(Config.STORM_ID), null, null, 1, null, List.of(1), new HashMap<>(), new HashMap<>(),
        new HashMap<>(), new HashMap<>(), new AtomicBoolean(false), new StormMetricRegistry());
  }

  @Test
  void aNonTransactionalSpoutIsRefusedWithTheEnginesMessage() {
    TridentTopology topology = new TridentTopology();
    StormStateBuilder state = state();
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class,
        () -> prepare(topology.newStream("plain", new Plain()), topology, state.opaque(), 1));
    String spout = "spout 'spout-plain' (NON_TRANSACTIONAL, " + Plain.class.getName() + ")";
    String why = Guarantees.whyNotExactlyOnce(SpoutKind.NON_TRANSACTIONAL, StateKind.OPAQUE, true, spout,
        "state 'wc' (" + state.opaque() + ")").orElseThrow();
    assertTrue(e.getMessage().startsWith("Storm topology 'wc-"), e.getMessage());
    assertTrue(e.getMessage().endsWith(" cannot deliver EXACTLY_ONCE: " + why), e.getMessage());
    assertTrue(e.getMessage().contains("cannot replay a failed batch"), e.getMessage());
  }

  @Test
  void anUnguardedOpaquePartitionedSpoutIsRefusedWithSeveralBatchesInFlight() {
    TridentTopology topology = new TridentTopology();
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class, () -> prepare(
        topology.newStream("opaque", new TestPartitionedSpouts.Opaque(data(), 2)), topology, state().opaque(), 2));
    assertTrue(e.getMessage().contains("STORM-1557") && e.getMessage().contains("topology.max.spout.pending is 2")
        && e.getMessage().contains("StormStateBuilder.guard"), e.getMessage());
  }

  @Test
  void aGuardedOpaqueSpoutOrOneBatchInFlightIsAccepted() {
    TridentTopology one = new TridentTopology();
    assertInstanceOf(EpochalMapView.class, prepare(one.newStream("opaque",
        new TestPartitionedSpouts.Opaque(data(), 2)), one, state().opaque(), 1));
    TridentTopology guarded = new TridentTopology();
    StormStateBuilder state = state();
    assertInstanceOf(EpochalMapView.class, prepare(guarded.newStream("opaque",
        state.guard("sentences", new TestPartitionedSpouts.Opaque(data(), 2))), guarded, state.opaque(), 3));
    TridentTopology transactional = new TridentTopology();
    assertInstanceOf(EpochalMapView.class, prepare(transactional.newStream("tx",
        new TestPartitionedSpouts.Transactional(data(), 2)), transactional, state().transactional(), 1));
  }

  @Test
  void anOpaqueSpoutIntoAPerKeyOpaqueStateIsRefused() {
    TridentTopology topology = new TridentTopology();
    StateFactory perKey = EpochalTrident.stormOpaqueState(() -> new FaultyBackingMap<>("pk", Integer.MAX_VALUE));
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class, () -> prepare(
        topology.newStream("opaque", new TestPartitionedSpouts.Opaque(data(), 2)), topology, perKey, 1));
    assertTrue(e.getMessage().contains("on the per-key (Trident) protocol"), e.getMessage());
  }

  @Test
  void aWeakerGuaranteeIsAnOptInThatOnlyLogs() {
    TridentTopology topology = new TridentTopology();
    assertInstanceOf(EpochalMapView.class, prepare(topology.newStream("plain", new Plain()), topology,
        state().guarantee(Guarantee.AT_LEAST_ONCE).opaque(), 1));
  }
}
