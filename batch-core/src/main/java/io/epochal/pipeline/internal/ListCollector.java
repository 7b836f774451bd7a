package io.epochal.pipeline.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.spout.BatchAttempt;
import java.util.ArrayList;
import java.util.List;

/** Collects the records of one source emitted in one attempt; a null record is an error. Internal. */
final class ListCollector implements io.epochal.spout.Collector<Object> {
  final List<Object> records = new ArrayList<>();
  private final String spout;
  private final BatchAttempt attempt;
  private final ErrorContext context;

  ListCollector(String spout, BatchAttempt attempt, ErrorContext context) {
    this.spout = spout;
    this.attempt = attempt;
    this.context = context;
  }

  @Override
  public void emit(Object record) {
    if (record == null) {
      throw new InvalidRecordException("spout '" + spout + "' emitted a null record in " + attempt, null, context);
    }
    records.add(record);
  }
}
