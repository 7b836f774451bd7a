package io.epochal.trident.internal;

import io.epochal.errors.InvalidRecordException;
import java.util.List;
import java.util.function.Function;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * The run-time check of {@code EpochalTrident.withFields}: every record has exactly the declared fields. Thread-safe
 * (the last checked {@code Fields} instance is a volatile cache).
 */
public final class DeclaredFields implements Function<TridentTuple, TridentTuple> {
  private final Fields fields;
  private final List<String> names;
  private volatile Fields lastChecked;

  /**
   * Checks records against {@code fields}.
   *
   * @param fields the declared fields, in order: a record passes only if its fields are exactly these
   * @throws NullPointerException if {@code fields} is null
   */
  public DeclaredFields(Fields fields) {
    this.fields = fields;
    this.names = fields.toList();
  }

  @Override
  public TridentTuple apply(TridentTuple record) {
    Fields actual = record.getFields();
    if (actual != lastChecked) {
      if (!actual.toList().equals(names)) {
        throw new InvalidRecordException("a record of a stream declared (EpochalTrident."
            + "withFields) with fields " + fields + " has fields " + actual + ": " + record + ". The pipeline "
            + "stops: no replay fixes it");
      }
      lastChecked = actual;
    }
    return record;
  }
}
