package io.epochal.testkit;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators for replay tests: inputs with skewed keys and failure schedules. */
public final class ReplayArbitraries {
  private ReplayArbitraries() {
  }

  /**
   * Failure schedules: up to {@code maxFaults} faults at any {@link FaultPoint}, in txids {@code 1..maxTxid}, each
   * either a retryable failure or a crash with restart.
   */
  public static Arbitrary<List<Fault>> faultSchedules(int maxTxid, int maxFaults) {
    Arbitrary<Fault> fault = Combinators.combine(
        Arbitraries.of(FaultPoint.class),
        Arbitraries.longs().between(1, maxTxid),
        Arbitraries.of(false, true),
        Arbitraries.integers().between(0, 3)).as(Fault::new);
    return fault.list().ofMaxSize(maxFaults);
  }

  /** Sentences of 1..6 words over a small, skewed vocabulary (so that keys repeat within and across batches). */
  public static Arbitrary<List<String>> sentences(int maxSentences) {
    Arbitrary<String> word = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.of("the", "a", "cat", "dog")),
        net.jqwik.api.Tuple.of(2, Arbitraries.strings().withCharRange('a', 'h').ofMinLength(1).ofMaxLength(3)));
    Arbitrary<String> sentence = word.list().ofMinSize(1).ofMaxSize(6).map(ws -> String.join(" ", ws));
    return sentence.list().ofMaxSize(maxSentences);
  }
}
