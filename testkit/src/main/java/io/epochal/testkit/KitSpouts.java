package io.epochal.testkit;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.codec.Codecs;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The spouts the kit feeds a schedule's input through, cut by its {@link BatchCuts}. */
final class KitSpouts {
  private KitSpouts() {
  }

  /** A half-open range {@code [start, end)} of input positions: a transactional batch's metadata. */
  record Cut(long start, long end) {
  }

  private static final Codec<Cut> CUTS = new Codec<>() {
    @Override
    public byte[] encode(Cut value) {
      return ByteBuffer.allocate(16).putLong(value.start()).putLong(value.end()).array();
    }

    @Override
    public Cut decode(byte[] bytes) {
      if (bytes.length != 16) {
        throw new CodecException("a cut is 16 bytes, got " + bytes.length);
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      return new Cut(b.getLong(), b.getLong());
    }

    @Override
    public String id() {
      return "epochal-testkit-cut:v1";
    }
  };

  static boolean supports(SpoutKind kind) {
    return kind == SpoutKind.TRANSACTIONAL || kind == SpoutKind.OPAQUE;
  }

  /** Batch {@code t} is the next {@code cuts.size(t)} records; every replay emits the same ones. */
  static <T> TransactionalSpout<T, Cut> transactional(String name, List<T> input, BatchCuts cuts) {
    return new TransactionalSpout<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Codec<Cut> metadataCodec() {
        return CUTS;
      }

      @Override
      public Optional<Cut> nextBatch(long txid, Optional<Cut> previous) {
        long start = previous.map(Cut::end).orElse(0L);
        if (start >= input.size()) {
          return Optional.empty();
        }
        return Optional.of(new Cut(start, Math.min(input.size(), start + cuts.size(txid))));
      }

      @Override
      public void emit(BatchAttempt attempt, Cut cut, Collector<T> out) {
        if (cut.end() > input.size()) {
          throw new SourceChangedException("spout '" + name + "': batch " + attempt + " ends at " + cut.end()
              + " beyond the input of " + input.size() + " records");
        }
        for (long i = cut.start(); i < cut.end(); i++) {
          out.emit(input.get((int) i));
        }
      }

      @Override
      public String toString() {
        return "transactional kit spout '" + name + "' (" + cuts + ")";
      }
    };
  }

  /**
   * Continues from the committed position; a re-emission of a txid (a replay, or a re-emission after a discarded
   * batch in flight) takes its size from the cuts' re-cuts. Keeps its emission counts for the whole run, so keep one
   * instance across the restarts of a run.
   */
  static <T> OpaqueSpout<T, Long> opaque(String name, List<T> input, BatchCuts cuts) {
    Map<Long, Integer> emissions = new HashMap<>();
    return new OpaqueSpout<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Codec<Long> metadataCodec() {
        return Codecs.longs();
      }

      @Override
      public boolean isReady(long txid, Optional<Long> previous) {
        return previous.orElse(0L) < input.size();
      }

      @Override
      public synchronized Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<T> out) {
        long start = previous.orElse(0L);
        int reemission = emissions.merge(attempt.txid(), 1, Integer::sum) - 1;
        int size = reemission == 0 ? cuts.size(attempt.txid()) : cuts.recut(attempt.txid(), reemission);
        long end = Math.min(input.size(), start + size);
        for (long i = start; i < end; i++) {
          out.emit(input.get((int) i));
        }
        return end;
      }

      @Override
      public String toString() {
        return "opaque re-cutting kit spout '" + name + "' (" + cuts + ")";
      }
    };
  }
}
