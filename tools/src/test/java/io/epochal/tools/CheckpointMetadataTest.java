package io.epochal.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.kafka.OffsetRange;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.tools.internal.CodecIds;
import io.epochal.tools.internal.Report;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code checkpoint show} of the metadata of a pipeline with two sources (one {@code --metadata-codec} per source),
 * and the per-partition decoding of {@code partitioned:v1(...)} metadata (the Kafka spouts' offset ranges).
 */
class CheckpointMetadataTest {
  @TempDir
  Path tmp;

  @Test
  void shouldShowEachSourceOfAPipelineWithTwoSources() {
    Path state = tmp.resolve("state");
    try (RocksDbTableStore store = RocksDbTableStore.builder(state).build()) {
      var builder = Pipeline.newBuilder("two").checkpointStore(TableCheckpointStore.on(store));
      var a = builder.source(GeneratedSpout.of("a", 30, 10, i -> "a" + i));
      var b = builder.source(GeneratedSpout.of("b", 50, 10, i -> "b" + i));
      a.merge(b).groupBy(s -> s.substring(0, 1)).persistentAggregate("counts", TransactionalTableLayout.factory(
          TableStates.builder(KeyCodec.strings(), Codecs.longs())), Aggregators.count());
      try (Pipeline p = builder.build()) {
        p.runUntilIdle();
      }
    }
    ToolRun r = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--metadata-codec", "range:v1",
        "--metadata-codec", "range:v1", "--json");
    assertEquals(0, r.code(), r::toString);
    JsonNode sources = r.json().get("pipelines").get(0).get("committed_metadata");
    assertEquals(2, sources.size(), sources::toString);
    assertEquals(30, sources.get(0).get("metadata").get("end").asLong(), sources::toString);
    assertEquals(50, sources.get(1).get("metadata").get("end").asLong(), sources::toString);
    assertTrue(sources.get(1).get("in_batch").asBoolean(), "b had records in the last batch: " + sources);
    ToolRun one = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--metadata-codec", "range:v1");
    assertEquals(1, one.code(), "merged metadata is no range: reported, not guessed " + one);
    assertTrue(one.err().contains("range:v1"), one::err);
    ToolRun text = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--metadata-codec", "range:v1",
        "--metadata-codec", "range:v1");
    assertTrue(text.out().contains("2 source(s)") && text.out().contains("source 1 (in this batch): "), text::out);
  }

  @Test
  void shouldDecodePartitionedMetadataPerPartition() {
    TreeMap<String, OffsetRange> partitions = new TreeMap<>();
    partitions.put("topic-0", new OffsetRange(0, 10));
    partitions.put("topic-1", new OffsetRange(5, 7));
    PartitionedMetadata<OffsetRange> meta = new PartitionedMetadata<>(partitions, new TreeSet<>(partitions
        .headMap("topic-1").keySet()));
    byte[] bytes = PartitionedMetadata.codec(OffsetRange.codec()).encode(meta);
    var codec = CodecIds.resolve("partitioned:v1(kafka-offset-range:v1)").codec().orElseThrow();
    JsonNode json = Report.toJson(codec.decode(bytes));
    assertTrue(json.get("partitions").get("topic-0").get("in_batch").asBoolean(), json::toString);
    JsonNode range = json.get("partitions").get("topic-1").get("metadata");
    assertEquals(5, range.get("from").asLong(), json::toString);
    assertEquals(7, range.get("to").asLong(), json::toString);
    assertTrue(!json.get("partitions").get("topic-1").get("in_batch").asBoolean(), "carried: " + json);
    assertTrue(CodecIds.resolve("partitioned:v1(something:v9)").codec().isEmpty());
  }
}
