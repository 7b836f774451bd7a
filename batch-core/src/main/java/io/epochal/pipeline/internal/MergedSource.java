package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.SpoutKind;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The sources of a pipeline with several spouts: every txid is one batch made of one share of each source, emitted
 * into the source's own stream, and committed in one epoch with one metadata record holding every source's metadata
 * (so all sources' positions commit together, atomically with the states and outputs).
 *
 * <p>Per source the usual rules hold: a transactional source's cut is fixed and recorded (as part of the batch's
 * pending metadata) before emission and a replay re-emits exactly it; an opaque source continues from its previous
 * metadata and may re-cut on a replay; a source with nothing new contributes nothing to the txid and keeps its
 * metadata. The cut of the whole batch is fixed before emission only when every source is transactional.
 *
 * <p>Metadata format 1: a byte {@code 1}, the source count, then per source a flag byte (1: it has records in this
 * batch, 2: metadata follows) and, with flag 2, the length and bytes of the source's own encoded metadata (its latest,
 * carried over from an earlier batch when it had nothing new). Used by the coordinator thread only. Internal.
 */
final class MergedSource extends BatchSource {
  private static final byte FORMAT = 1;
  private static final int PRESENT = 1;
  private static final int HAS_META = 2;

  /** One source's share of a batch: whether it emits in it, and its metadata (the cut, or the position after). */
  static final class Share {
    boolean present;
    Optional<Object> meta = Optional.empty();
  }

  /** The metadata of a merged batch: per source, whether it emitted in it and its latest metadata. */
  record Meta(List<Boolean> present, List<Optional<Object>> latest) {
  }

  private final List<BatchSource> parts;
  private final boolean cutsBeforeEmission;

  MergedSource(List<BatchSource> parts) {
    super(null);
    this.parts = List.copyOf(parts);
    this.cutsBeforeEmission = this.parts.stream().allMatch(BatchSource::cutsBeforeEmission);
  }

  @Override
  String name() {
    List<String> names = new ArrayList<>();
    for (BatchSource p : parts) {
      names.add(p.name());
    }
    return String.join("+", names);
  }

  /** The weakest kind among the sources (non-transactional, then opaque, then transactional). */
  @Override
  SpoutKind kind() {
    SpoutKind weakest = SpoutKind.TRANSACTIONAL;
    for (BatchSource p : parts) {
      if (p.kind() == SpoutKind.NON_TRANSACTIONAL) {
        return SpoutKind.NON_TRANSACTIONAL;
      }
      if (p.kind() == SpoutKind.OPAQUE) {
        weakest = SpoutKind.OPAQUE;
      }
    }
    return weakest;
  }

  @Override
  boolean cutsBeforeEmission() {
    return cutsBeforeEmission;
  }

  @Override
  boolean opened(InFlight batch) {
    return batch.opened != null;
  }

  @Override
  boolean open(InFlight batch, Optional<Object> previous, Pending pending) {
    List<Optional<Object>> prev = latest(previous);
    Share[] shares = new Share[parts.size()];
    byte[] recovered = pending.recovered(batch.txid);
    Meta recorded = recovered == null ? null : decodeMeta(recovered);
    boolean any = false;
    boolean cutRecorded = false;
    for (int i = 0; i < shares.length; i++) {
      BatchSource part = parts.get(i);
      shares[i] = new Share();
      if (part.cutsBeforeEmission()) {
        cutRecorded = true;
        if (recorded != null) {
          shares[i].present = recorded.present().get(i);
          shares[i].meta = recorded.present().get(i) ? recorded.latest().get(i) : Optional.empty();
          any |= shares[i].present;
          continue;
        }
      }
      any |= part.cutShare(batch.txid, prev.get(i), shares[i]);
    }
    if (!any) {
      return false;
    }
    if (cutRecorded && recorded == null) {
      pending.record(batch.txid, encode(cutsOnly(shares)));
    }
    batch.opened = shares;
    if (cutsBeforeEmission) {
      setMeta(batch, shares, prev);
    }
    return true;
  }

  @Override
  void emit(InFlight batch, Optional<Object> previous, Emission out, ErrorContext ctx) {
    Share[] shares = (Share[]) batch.opened;
    List<Optional<Object>> prev = latest(previous);
    for (int i = 0; i < shares.length; i++) {
      if (shares[i].present) {
        parts.get(i).emitShare(batch.attemptId(), prev.get(i), shares[i], out.of(i), ctx);
      }
    }
    setMeta(batch, shares, prev);
  }

  @Override
  boolean cutShare(long txid, Optional<Object> previous, Share share) {
    throw new UnsupportedOperationException("merged sources do not nest");
  }

  @Override
  void emitShare(BatchAttempt attempt, Optional<Object> previous, Share share, io.epochal.spout.Collector<Object> out,
      ErrorContext ctx) {
    throw new UnsupportedOperationException("merged sources do not nest");
  }

  @Override
  Object decode(byte[] metadata) {
    return decodeMeta(metadata);
  }

  /**
   * {@inheritDoc} A source without metadata in the pending record keeps its committed metadata: an
   * {@code AT_MOST_ONCE} record carries every source's latest position, but a record an {@code EXACTLY_ONCE} run wrote
   * before emission holds only the transactional sources' cuts.
   */
  @Override
  Object pendingPosition(byte[] pending, Optional<Object> committed) {
    Meta recorded = decodeMeta(pending);
    List<Optional<Object>> prev = latest(committed);
    List<Optional<Object>> latest = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      latest.add(recorded.latest().get(i).isPresent() ? recorded.latest().get(i) : prev.get(i));
    }
    return new Meta(recorded.present(), Collections.unmodifiableList(latest));
  }

  @Override
  byte[] encode(Object metadata) {
    Meta m = (Meta) metadata;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      out.writeInt(parts.size());
      for (int i = 0; i < parts.size(); i++) {
        Optional<Object> meta = m.latest().get(i);
        out.writeByte((m.present().get(i) ? PRESENT : 0) | (meta.isPresent() ? HAS_META : 0));
        if (meta.isPresent()) {
          byte[] b = parts.get(i).encode(meta.get());
          out.writeInt(b.length);
          out.write(b);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  @Override
  void success(long txid) {
    RuntimeException first = null;
    for (BatchSource p : parts) {
      try {
        p.success(txid);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  void close() {
    RuntimeException first = null;
    for (BatchSource p : parts) {
      try {
        p.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void setMeta(InFlight batch, Share[] shares, List<Optional<Object>> prev) {
    List<Boolean> present = new ArrayList<>(shares.length);
    List<Optional<Object>> latest = new ArrayList<>(shares.length);
    for (int i = 0; i < shares.length; i++) {
      present.add(shares[i].present);
      latest.add(shares[i].present && shares[i].meta.isPresent() ? shares[i].meta : prev.get(i));
    }
    Meta meta = new Meta(Collections.unmodifiableList(present), Collections.unmodifiableList(latest));
    batch.meta = Optional.of(meta);
    batch.metaBytes = encode(meta);
  }

  /** The shares of the sources whose cut is fixed before emission (what the pending record keeps). */
  private Meta cutsOnly(Share[] shares) {
    List<Boolean> present = new ArrayList<>(shares.length);
    List<Optional<Object>> latest = new ArrayList<>(shares.length);
    for (int i = 0; i < shares.length; i++) {
      boolean cut = parts.get(i).cutsBeforeEmission();
      present.add(cut && shares[i].present);
      latest.add(cut ? shares[i].meta : Optional.empty());
    }
    return new Meta(present, latest);
  }

  private List<Optional<Object>> latest(Optional<Object> previous) {
    if (previous.isEmpty()) {
      return Collections.nCopies(parts.size(), Optional.empty());
    }
    return ((Meta) previous.get()).latest();
  }

  private Meta decodeMeta(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte format = in.readByte();
      if (format != FORMAT) {
        throw new IOException("unknown merged-metadata format " + format + " (a single-source pipeline wrote it?)");
      }
      int n = in.readInt();
      if (n != parts.size()) {
        throw new IOException("it holds the metadata of " + n + " sources, this pipeline has " + parts.size());
      }
      List<Boolean> present = new ArrayList<>(n);
      List<Optional<Object>> latest = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int flags = in.readByte();
        present.add((flags & PRESENT) != 0);
        if ((flags & HAS_META) != 0) {
          int len = in.readInt();
          if (len < 0 || len > in.available()) {
            throw new IOException("bad metadata length " + len + " of source " + i);
          }
          byte[] b = new byte[len];
          in.readFully(b);
          latest.add(Optional.of(parts.get(i).decode(b)));
        } else {
          latest.add(Optional.empty());
        }
      }
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes");
      }
      return new Meta(Collections.unmodifiableList(present), Collections.unmodifiableList(latest));
    } catch (IOException e) {
      throw new EpochalException("The checkpoint's metadata cannot be read as that of sources " + name() + ": "
          + e.getMessage() + ". Did the pipeline's sources change? Sources cannot be added, removed or reordered on an"
          + " existing checkpoint.", e, false, ErrorContext.NONE);
    }
  }
}
