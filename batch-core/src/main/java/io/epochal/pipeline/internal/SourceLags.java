package io.epochal.pipeline.internal;

import io.epochal.pipeline.SourceLag;
import io.epochal.spout.LagReporting;
import io.epochal.spout.Spout;
import java.util.ArrayList;
import java.util.List;

/**
 * The lag reads of {@link io.epochal.pipeline.Pipeline#sourceLag()}: the pipeline's spouts that implement
 * {@link LagReporting}, in declaration order, each read on the calling thread; a failed read becomes
 * {@link SourceLag#failed}, never a lag of 0. Thread-safe: immutable, and the spouts' reports may be read from any
 * thread ({@link LagReporting}'s contract).
 */
final class SourceLags {
  private final List<Spout<?, ?>> reporting;

  SourceLags(List<? extends Spout<?, ?>> spouts) {
    this.reporting = spouts.stream().filter(s -> s instanceof LagReporting).<Spout<?, ?>>map(s -> s).toList();
  }

  /** @return one entry per lag-reporting spout, read now */
  List<SourceLag> read() {
    List<SourceLag> out = new ArrayList<>(reporting.size());
    for (Spout<?, ?> spout : reporting) {
      try {
        out.add(SourceLag.read(spout.name(), ((LagReporting) spout).sourceLag()));
      } catch (RuntimeException e) {
        out.add(SourceLag.failed(spout.name(), e.getClass().getSimpleName() + ": " + e.getMessage()));
      }
    }
    return List.copyOf(out);
  }
}
