package io.epochal.testkit;

import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.ForwardingSpouts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Records every (txid, attempt) a spout is asked to emit, across pipeline runs (issue 10, finding 10), and checks that
 * no pair repeats and that the attempts of each txid strictly increase in emission order. Thread-safe.
 */
final class AttemptRecorder implements ForwardingSpouts.EmitDecorator {
  private final List<BatchAttempt> emitted = new ArrayList<>();

  @Override
  public synchronized <T, R> R aroundEmit(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission) {
    emitted.add(attempt);
    return emission.apply(out);
  }

  /** @return every emission so far, in order */
  synchronized List<BatchAttempt> emitted() {
    return List.copyOf(emitted);
  }

  /** @return the first violation (a repeated pair, or an attempt not above the txid's previous one), if any */
  synchronized Optional<String> violation() {
    Set<BatchAttempt> seen = new HashSet<>();
    Map<Long, Integer> last = new HashMap<>();
    for (int i = 0; i < emitted.size(); i++) {
      BatchAttempt a = emitted.get(i);
      if (!seen.add(a)) {
        return Optional.of("emission #" + i + " repeats " + a + "; emissions: " + emitted);
      }
      Integer before = last.put(a.txid(), a.attempt());
      if (before != null && before >= a.attempt()) {
        return Optional.of("emission #" + i + " " + a + " follows attempt " + before + " of the same txid; emissions: "
            + emitted);
      }
    }
    return Optional.empty();
  }

  /** @return how many emissions re-emitted a txid that was emitted before (replays, drops, restarts) */
  synchronized int reEmissions() {
    Set<Long> txids = new HashSet<>();
    int again = 0;
    for (BatchAttempt a : emitted) {
      if (!txids.add(a.txid())) {
        again++;
      }
    }
    return again;
  }

  @SuppressWarnings("unchecked")
  <T> Spout<T, ?> wrap(Spout<T, ?> spout) {
    if (spout instanceof OpaqueSpout<?, ?> o) {
      return opaque((OpaqueSpout<T, Object>) o);
    }
    return transactional((TransactionalSpout<T, Object>) spout);
  }

  <T, M> OpaqueSpout<T, M> opaque(OpaqueSpout<T, M> spout) {
    AttemptRecorder recorder = this;
    return new ForwardingSpouts.Opaque<>() {
      @Override
      public OpaqueSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return recorder.aroundEmit(attempt, out, emission);
      }
    };
  }

  <T, M> TransactionalSpout<T, M> transactional(TransactionalSpout<T, M> spout) {
    AttemptRecorder recorder = this;
    return new ForwardingSpouts.Transactional<>() {
      @Override
      public TransactionalSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return recorder.aroundEmit(attempt, out, emission);
      }
    };
  }
}
