package io.epochal.trident;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Guarantees;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.trident.internal.TopologySpouts;
import java.util.Map;
import java.util.Optional;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pairing check of an Epochal state on Storm, run when Storm prepares a state partition: every Trident spout
 * whose batches reach the state's bolt is paired with the state through the engine's guarantee table
 * ({@link Guarantees}); on top, a partitioned opaque spout without the STORM-1557 guard is refused when more than one
 * batch is in flight. {@code EXACTLY_ONCE} refuses ({@link GuaranteeNotDeliverableException}), a weaker guarantee
 * only logs. Stateless and thread-safe.
 */
final class StormPairing {
  private static final Logger LOG = LoggerFactory.getLogger(StormPairing.class);

  private StormPairing() {
  }

  static void check(TopologyContext context, Map<?, ?> conf, StateKind state, boolean atomic, String stateName,
      String describe, Guarantee guarantee) {
    Object id = conf == null ? null : conf.get(Config.STORM_ID);
    Object pending = conf == null ? null : conf.get(Config.TOPOLOGY_MAX_SPOUT_PENDING);
    long inFlight = pending instanceof Number n ? n.longValue() : 1;
    String topology = "Storm topology '" + (id == null ? context.getStormId() : id) + "'";
    java.util.List<TopologySpouts.Feeding> feeding = TopologySpouts.feeding(context);
    LOG.info("{}: state '{}' partition {} is fed by {} ({} in flight)", topology, stateName,
        context.getThisTaskIndex(), feeding, inFlight);
    for (TopologySpouts.Feeding f : feeding) {
      String spout = "spout '" + f.component() + "' (" + f.kind() + ", " + f.spout() + ")";
      Optional<String> why = Guarantees.whyNotExactlyOnce(f.kind(), state, atomic, spout,
          "state '" + stateName + "' (" + describe + ")");
      if (why.isEmpty() && f.unguardedOpaquePartitioned() && inFlight > 1) {
        why = Optional.of(spout + " is a partitioned opaque spout without the STORM-1557 guard, and "
            + "topology.max.spout.pending is " + inFlight + ": Storm 2.8.3 can start txids out of order and emit "
            + "one range of a partition under two txids, which " + stateName + " then counts twice. Fix: wrap the "
            + "spout with StormStateBuilder.guard(name, spout), or set topology.max.spout.pending to 1; or opt "
            + "in to AT_LEAST_ONCE.");
      }
      if (why.isEmpty() && f.kind() == SpoutKind.TRANSACTIONAL && inFlight > 1) {
        LOG.warn("{}: {} runs with topology.max.spout.pending {}; the STORM-1557 guard covers partitioned opaque "
            + "spouts only", topology, spout, inFlight);
      }
      if (why.isPresent()) {
        if (guarantee == Guarantee.EXACTLY_ONCE) {
          throw new GuaranteeNotDeliverableException(Guarantees.refusal(topology, why.get()));
        }
        LOG.warn("{} runs state '{}' {} by explicit opt-in; it is not exactly-once because: {}", topology, stateName,
            guarantee, why.get());
      }
    }
  }
}
