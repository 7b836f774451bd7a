package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Map;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.trident.Stream;
import org.apache.storm.trident.TridentState;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.map.CachedMap;
import org.apache.storm.trident.state.map.OpaqueMap;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/**
 * The README's custom Trident state ("2. A custom IBackingMap", before), verbatim (examples' ReadmeSnippetsTest
 * compares it): Storm's {@code OpaqueMap} over a cached {@link MyRedisBackingMap}. Its second part, the topology
 * that uses it, is {@link RedisCountsReadmeTest}.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
// README begin trident-custom-map-before
public class RedisCounts implements StateFactory {
  public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partition, int partitions) {
    return OpaqueMap.build(new CachedMap(new MyRedisBackingMap(conf), 1000));   // IBackingMap<OpaqueValue>
  }
}
// README end trident-custom-map-before

/** The README's use of {@link RedisCounts} in a Storm topology, wired (Storm does not run here). */
final class RedisCountsReadmeTest {
  @Test
  void theBeforeSnippetWiresATridentTopology() {
    TridentTopology topology = new TridentTopology();
    Stream stream = topology.newStream("spout1", Sentences.spout(Sentences.make(10, 3), 5))
        .each(new Fields("sentence"), new Split(), new Fields("word"));
    // README begin trident-custom-map-before
    stream.groupBy(new Fields("word")).persistentAggregate(new RedisCounts(), new Count(), new Fields("count"));
    // README end trident-custom-map-before
    TridentState state = stream.groupBy(new Fields("word"))
        .persistentAggregate(new RedisCounts(), new Count(), new Fields("count"));
    assertNotNull(state);
  }
}
