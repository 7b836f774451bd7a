package io.epochal.tools.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.codec.Codec;
import io.epochal.store.Checkpoint;
import io.epochal.store.OutboxEntry;
import io.epochal.store.table.CheckpointRows;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code checkpoint show}: per pipeline of the checkpoint table, the committed txid and its spout metadata, the
 * pending (started, uncommitted) batches with theirs, the attempt reservation and the outbox. The checkpoint does not
 * record the spout's metadata codec: metadata is decoded only with {@code --metadata-codec ID} (for instance
 * {@code partitioned:v1(kafka-offset-range:v1)}, per partition), else shown as raw hex with a note saying so. Not
 * thread-safe (one run).
 */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = "Print each pipeline's committed txid, pending batches and source metadata per partition.")
public final class CheckpointShow extends ToolCommand {
  @Option(names = "--pipeline", paramLabel = "NAME", description = "only this pipeline") String pipeline;
  @Option(names = "--table-prefix", paramLabel = "PREFIX", defaultValue = "",
      description = "the checkpoint store's table prefix (default: none)") String prefix;
  @Option(names = "--metadata-codec", paramLabel = "ID", description = "the id of the spout's metadata codec, e.g. "
      + "range:v1, partitioned:v1(kafka-offset-range:v1), long-be:v1; once per source, in the pipeline's source "
      + "order, for a pipeline with several (default: show raw hex)") List<String> metadataCodecs;

  /** The parent command {@code checkpoint}. */
  @Command(name = "checkpoint", description = "Inspect checkpoints (read-only).", mixinStandardHelpOptions = true,
      subcommands = CheckpointShow.class)
  public static final class Group {
  }

  @Override
  protected int run(StoreAccess access, Report report) {
    String path = CheckpointRows.tablePath(prefix);
    Table table = StateCommands.find(access, path);
    Optional<Codec<?>> codec = Optional.empty();
    String note = "the checkpoint does not record the spout's metadata codec: metadata shown as raw hex (pass "
        + "--metadata-codec ID to decode it)";
    if (metadataCodecs != null) {
      List<Codec<?>> codecs = new ArrayList<>();
      for (String id : metadataCodecs) {
        CodecIds.Resolution r = CodecIds.resolve(id);
        codecs.add(r.codec().orElseThrow(() -> new IllegalArgumentException("--metadata-codec: " + r.why())));
      }
      codec = Optional.of(codecs.size() == 1 ? codecs.get(0) : new MergedMetadata(codecs));
      note = "";
    }
    report.line("checkpoints in table %s", path);
    if (!note.isEmpty()) {
      report.line("  NOTE: %s", note);
      report.document().put("note", note);
    }
    ArrayNode pipelines = report.document().putArray("pipelines");
    Optional<Codec<?>> c = codec;
    int[] found = new int[1];
    access.inspect(table, cell -> {
      if (cell.error().isPresent()) {
        report.unreadable(path, cell.key(), cell.error().get());
        return;
      }
      Row row = cell.row().get();
      String name = CheckpointRows.pipeline(row);
      if (pipeline != null && !pipeline.equals(name)) {
        return;
      }
      found[0]++;
      try {
        show(report, name, CheckpointRows.decode(row), c, pipelines);
      } catch (RuntimeException e) {
        report.unreadable(path, cell.key(), Errors.oneLine(e));
      }
    });
    if (found[0] == 0 && pipeline != null) {
      report.line("no checkpoint of pipeline '%s'", pipeline);
      return UNREADABLE;
    }
    return OK;
  }

  private static void show(Report report, String name, Checkpoint cp, Optional<Codec<?>> codec, ArrayNode out) {
    Object committed = cp.committedTxid() == 0 && cp.committedMetadata().length == 0 ? null
        : metadata(cp.committedMetadata(), codec);
    ObjectNode p = report.json() ? out.addObject() : null;
    report.line("pipeline %s: committed txid %d, attempt ceiling %d, txid window %d", name, cp.committedTxid(),
        cp.attemptCeiling(), cp.txidWindow());
    report.line("  committed metadata: %s", committed == null ? "(none)" : describe(committed));
    report.line("  pending batches: %d", cp.pendingMetadata().size());
    ArrayNode pending = null;
    if (p != null) {
      p.put("pipeline", name).put("committed_txid", cp.committedTxid()).put("attempt_ceiling", cp.attemptCeiling())
          .put("txid_window", cp.txidWindow());
      p.set("committed_metadata", committed == null ? null : Report.toJson(committed));
      pending = p.putArray("pending");
    }
    for (Map.Entry<Long, byte[]> e : cp.pendingMetadata().entrySet()) {
      Object m = metadata(e.getValue(), codec);
      report.line("    txid %d: %s", e.getKey(), describe(m));
      if (pending != null) {
        pending.addObject().put("txid", e.getKey()).set("metadata", Report.toJson(m));
      }
    }
    report.line("  outbox: %d entries", cp.outbox().size());
    ArrayNode outbox = p == null ? null : p.putArray("outbox");
    for (OutboxEntry e : cp.outbox()) {
      report.line("    sink %s, partition %d, %d bytes", e.sink(), e.partition(), e.payload().length);
      if (outbox != null) {
        outbox.addObject().put("sink", e.sink()).put("partition", e.partition()).put("bytes", e.payload().length);
      }
    }
  }

  /** @return the metadata decoded, or raw; @throws RuntimeException if the codec given cannot decode it */
  private static Object metadata(byte[] bytes, Optional<Codec<?>> codec) {
    return codec.isPresent() ? codec.get().decode(bytes) : new TableDecoder.Raw(bytes);
  }

  private static String describe(Object metadata) {
    if (metadata instanceof io.epochal.spout.PartitionedMetadata<?> pm) {
      StringBuilder sb = new StringBuilder();
      pm.partitions().forEach((k, v) -> sb.append("\n      partition ").append(k).append(": ").append(v)
          .append(pm.isInBatch(k) ? " (in this batch)" : " (carried)"));
      return pm.partitions().size() + " partition(s)" + sb;
    }
    if (metadata instanceof List<?> sources) {
      StringBuilder sb = new StringBuilder(sources.size() + " source(s)");
      for (Object o : sources) {
        MergedMetadata.Source s = (MergedMetadata.Source) o;
        sb.append("\n      source ").append(s.index()).append(s.inBatch() ? " (in this batch): " : " (carried): ")
            .append(s.metadata().map(CheckpointShow::describe).orElse("(no metadata yet)"));
      }
      return sb.toString();
    }
    return Report.toText(metadata);
  }
}
