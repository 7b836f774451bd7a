package io.epochal.spout;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The metadata of one batch of a partitioned spout, as produced by the adapters in {@link Spouts}: one entry per
 * partition that ever had data, sorted by partition name.
 *
 * <p><b>Carry-forward design.</b> {@link #partitions()} holds, for every partition that has had data in this or any
 * earlier batch, its latest metadata: the range (transactional) or the position after it (opaque) fixed in this
 * batch, or, for a partition with nothing new in this batch, the metadata it had after the previous batch, carried
 * unchanged. So a batch's metadata alone is enough to cut the next batch of every partition (the coordinator is only
 * given batch {@code txid - 1}'s metadata). A partition that never had data is absent. {@link #inBatch()} names the
 * partitions whose entry is new in this batch; only those are emitted (transactional) or advanced (opaque). A
 * partition's carried entry is never re-emitted.
 *
 * <p><b>Partition order</b> is ascending {@link String} order of the partition names, both in the maps and in
 * emission, so the order of a batch's records depends on its metadata alone (not on the order of the spout's
 * partition list at replay time).
 *
 * <p>Immutable and thread-safe if the {@code P} values are. Null policy: no component, partition name or value may
 * be {@code null} ({@link NullPointerException}). {@code equals} compares both components.
 *
 * @param partitions the latest metadata of every partition that has had data, by partition name; copied
 * @param inBatch the partitions whose entry in {@code partitions} is new in this batch; copied; a subset of
 *     {@code partitions}' keys
 * @param <P> the per-partition metadata type, an immutable value
 * @since 0.1.0
 */
@Stable
public record PartitionedMetadata<P>(SortedMap<String, P> partitions, SortedSet<String> inBatch) {

  /**
   * Copies and checks the components.
   *
   * @param partitions the latest metadata of every partition that has had data, by partition name
   * @param inBatch the partitions whose entry is new in this batch, a subset of {@code partitions}' keys
   * @throws NullPointerException if a component, a name or a value is {@code null}
   * @throws IllegalArgumentException if {@code inBatch} names a partition absent from {@code partitions}
   */
  public PartitionedMetadata {
    Objects.requireNonNull(partitions, "partitions");
    Objects.requireNonNull(inBatch, "inBatch");
    TreeMap<String, P> copy = new TreeMap<>();
    for (Map.Entry<String, P> e : partitions.entrySet()) {
      copy.put(Objects.requireNonNull(e.getKey(), "partition name"),
          Objects.requireNonNull(e.getValue(), () -> "metadata of partition " + e.getKey()));
    }
    TreeSet<String> batch = new TreeSet<>();
    for (String p : inBatch) {
      Objects.requireNonNull(p, "partition name in inBatch");
      if (!copy.containsKey(p)) {
        throw new IllegalArgumentException(
            "Partition " + p + " is in the batch but has no metadata; known partitions: " + copy.keySet());
      }
      batch.add(p);
    }
    partitions = Collections.unmodifiableSortedMap(copy);
    inBatch = Collections.unmodifiableSortedSet(batch);
  }

  /**
   * The metadata before any batch: no partition.
   *
   * @param <P> the per-partition metadata type
   * @return an empty instance
   */
  public static <P> PartitionedMetadata<P> empty() {
    return new PartitionedMetadata<>(Collections.emptySortedMap(), Collections.emptySortedSet());
  }

  /**
   * @param partition a partition name, not {@code null}
   * @return the latest metadata of {@code partition} (new in this batch or carried), empty if it never had data
   */
  public Optional<P> get(String partition) {
    return Optional.ofNullable(partitions.get(Objects.requireNonNull(partition, "partition")));
  }

  /**
   * @param partition a partition name, not {@code null}
   * @return whether {@code partition}'s entry is new in this batch
   */
  public boolean isInBatch(String partition) {
    return inBatch.contains(Objects.requireNonNull(partition, "partition"));
  }

  /** @return the entries new in this batch, in partition order, as a new unmodifiable map */
  public SortedMap<String, P> batchPartitions() {
    TreeMap<String, P> out = new TreeMap<>();
    for (String p : inBatch) {
      out.put(p, partitions.get(p));
    }
    return Collections.unmodifiableSortedMap(out);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("PartitionedMetadata{");
    boolean first = true;
    for (Map.Entry<String, P> e : partitions.entrySet()) {
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(e.getKey()).append(inBatch.contains(e.getKey()) ? "*=" : "=").append(e.getValue());
    }
    return sb.append("} (* = in batch)").toString();
  }

  /**
   * A codec for partitioned metadata over a codec of one partition's metadata. Length-prefixed binary, no Kryo:
   * {@code int count}, then per partition in ascending name order {@code int nameLength, name (UTF-8), byte inBatch
   * (0 or 1), int metadataLength, metadata (partitionCodec)}; all integers big-endian. Decoding rejects truncated
   * or trailing bytes, negative lengths, unsorted or duplicate names, malformed UTF-8 and flags other than 0/1 with
   * {@link CodecException}. Id {@code "partitioned:v1(" + partitionCodec.id() + ")"}. Thread-safe if
   * {@code partitionCodec} is.
   *
   * @param partitionCodec the codec of one partition's metadata, not {@code null}
   * @param <P> the per-partition metadata type
   * @return a new codec
   * @throws NullPointerException if {@code partitionCodec} is {@code null}
   */
  public static <P> Codec<PartitionedMetadata<P>> codec(Codec<P> partitionCodec) {
    return new PartitionedCodec<>(Objects.requireNonNull(partitionCodec, "partitionCodec"));
  }

  private static final class PartitionedCodec<P> implements Codec<PartitionedMetadata<P>> {
    private final Codec<P> inner;
    private final String id;

    PartitionedCodec(Codec<P> inner) {
      this.inner = inner;
      this.id = "partitioned:v1(" + inner.id() + ")";
    }

    @Override
    public byte[] encode(PartitionedMetadata<P> value) {
      Objects.requireNonNull(value, "value");
      int size = Integer.BYTES;
      int n = value.partitions.size();
      byte[][] names = new byte[n][];
      byte[][] metas = new byte[n][];
      int i = 0;
      for (Map.Entry<String, P> e : value.partitions.entrySet()) {
        names[i] = encodeName(e.getKey());
        metas[i] = Objects.requireNonNull(inner.encode(e.getValue()), "partition codec returned null");
        size = Math.addExact(size, Integer.BYTES + names[i].length + 1 + Integer.BYTES + metas[i].length);
        i++;
      }
      ByteBuffer buf = ByteBuffer.allocate(size);
      buf.putInt(n);
      i = 0;
      for (String name : value.partitions.keySet()) {
        buf.putInt(names[i].length).put(names[i]);
        buf.put(value.inBatch.contains(name) ? (byte) 1 : (byte) 0);
        buf.putInt(metas[i].length).put(metas[i]);
        i++;
      }
      return buf.array();
    }

    @Override
    public PartitionedMetadata<P> decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      try {
        int n = buf.getInt();
        if (n < 0) {
          throw new CodecException(id + ": negative partition count " + n);
        }
        TreeMap<String, P> partitions = new TreeMap<>();
        TreeSet<String> inBatch = new TreeSet<>();
        String previous = null;
        for (int i = 0; i < n; i++) {
          String name = decodeName(readBlock(buf, "partition name"));
          if (previous != null && previous.compareTo(name) >= 0) {
            throw new CodecException(id + ": partition names not strictly ascending: " + previous + ", " + name);
          }
          previous = name;
          byte flag = buf.get();
          if (flag != 0 && flag != 1) {
            throw new CodecException(id + ": bad in-batch flag " + flag + " for partition " + name);
          }
          byte[] meta = readBlock(buf, "metadata of partition " + name);
          P value;
          try {
            value = inner.decode(meta);
          } catch (CodecException e) {
            throw new CodecException(id + ": cannot decode metadata of partition " + name + ": " + e.getMessage(), e);
          }
          partitions.put(name, value);
          if (flag == 1) {
            inBatch.add(name);
          }
        }
        if (buf.hasRemaining()) {
          throw new CodecException(id + ": " + buf.remaining() + " trailing bytes");
        }
        return new PartitionedMetadata<>(partitions, inBatch);
      } catch (BufferUnderflowException e) {
        throw new CodecException(id + ": truncated encoding of " + bytes.length + " bytes", e);
      }
    }

    private byte[] readBlock(ByteBuffer buf, String what) {
      int len = buf.getInt();
      if (len < 0 || len > buf.remaining()) {
        throw new CodecException(id + ": bad length " + len + " of " + what + " (" + buf.remaining() + " bytes left)");
      }
      byte[] out = new byte[len];
      buf.get(out);
      return out;
    }

    private byte[] encodeName(String name) {
      try {
        ByteBuffer b = StandardCharsets.UTF_8.newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .encode(CharBuffer.wrap(name));
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
      } catch (CharacterCodingException e) {
        throw new CodecException(id + ": partition name is not valid Unicode: " + name, e);
      }
    }

    private String decodeName(byte[] bytes) {
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes))
            .toString();
      } catch (CharacterCodingException e) {
        throw new CodecException(id + ": partition name is not valid UTF-8", e);
      }
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String toString() {
      return id;
    }
  }
}
