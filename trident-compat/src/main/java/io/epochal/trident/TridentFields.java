package io.epochal.trident;

import io.epochal.errors.InvalidRecordException;
import java.util.ArrayList;
import java.util.List;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * Checks of Trident {@code Fields} references, Trident's {@code projectionValidation}: when the pipeline is built if
 * the stream's fields are known ({@link FieldsStream}), with {@link IllegalArgumentException} as Trident throws it;
 * and on the records otherwise, with {@link InvalidRecordException}, which stops the pipeline at once (no replay can add a
 * field to a record). Both name the operation, the missing field and the fields available.
 */
final class TridentFields {
  private TridentFields() {
  }

  /** An adapter that selects fields of its input records, checkable against a stream's fields at build time. */
  interface Selecting {
    /**
     * @param available the fields of the stream the adapter is applied to
     * @throws IllegalArgumentException if the adapter selects a field the stream does not have
     */
    void checkInput(Fields available);
  }

  /** @return the first field of {@code selector} that {@code available} lacks, or null */
  static String firstMissing(Fields available, Fields selector) {
    for (String field : selector) {
      if (!available.contains(field)) {
        return field;
      }
    }
    return null;
  }

  private static String message(String what, String missing, Fields selector, Fields available) {
    return what + " selects " + selector + ": Trying to select non-existent field: '" + missing
        + "' from stream containing fields fields: <" + available + ">";
  }

  /**
   * At build time: every field of {@code selector} (none if null) is one of {@code available}.
   *
   * @throws IllegalArgumentException naming the operation, the missing field and the available ones
   */
  static void requireAll(Fields available, Fields selector, String what) {
    if (selector == null) {
      return;
    }
    String missing = firstMissing(available, selector);
    if (missing != null) {
      throw new IllegalArgumentException(message(what, missing, selector, available));
    }
  }

  /**
   * At build time: the fields of {@code input} followed by {@code more} (Trident's "input fields + function fields").
   *
   * @throws IllegalArgumentException if a field of {@code more} is already one of {@code input} (or repeated)
   */
  static Fields concat(Fields input, Fields more, String what) {
    List<String> names = new ArrayList<>(input.toList());
    names.addAll(more.toList());
    try {
      return new Fields(names);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " declares output fields " + more + " over a stream containing fields <"
          + input + ">: " + e.getMessage() + " (Trident refuses the same)", e);
    }
  }

  /**
   * The run-time check of one operation's selector on its records: each distinct {@code Fields} of the records is
   * checked once (the last one checked is remembered). Thread-safe.
   */
  static final class Selector {
    private final Fields selector;
    private final String what;
    private volatile Fields lastChecked;

    /**
     * @param selector the fields selected, or null for all (nothing to check)
     * @param what the operation, for messages
     */
    Selector(Fields selector, String what) {
      this.selector = selector;
      this.what = what;
    }

    Fields fields() {
      return selector;
    }

    String what() {
      return what;
    }

    /** At build time, see {@link TridentFields#requireAll}. */
    void checkInput(Fields available) {
      requireAll(available, selector, what);
    }

    /**
     * @throws InvalidRecordException if {@code record} lacks a selected field
     */
    void check(TridentTuple record) {
      if (selector == null) {
        return;
      }
      Fields available = record.getFields();
      if (available == lastChecked) {
        return;
      }
      String missing = firstMissing(available, selector);
      if (missing != null) {
        throw new InvalidRecordException(message(what, missing, selector, available) + ". No replay can add the field:"
            + " the pipeline stops. Fix the wiring; streams made with EpochalTrident.newStream or withFields have it "
            + "checked when the pipeline is built");
      }
      lastChecked = available;
    }

    /** The record projected to the selector, as Trident operations get it (see {@link FieldsTuple#project}). */
    TridentTuple project(TridentTuple record) {
      check(record);
      return FieldsTuple.project(record, selector);
    }

    /** The values of the selected fields. */
    List<Object> select(TridentTuple record) {
      check(record);
      return selector == null ? record.getValues() : record.select(selector);
    }
  }

  /**
   * The fields of an operation's output tuples, input fields followed by the operation's: computed once per distinct
   * input {@code Fields}, a repeated field being an {@link InvalidRecordException} at run time. Thread-safe.
   */
  static final class Appender {
    private final Fields more;
    private final String what;
    private volatile Last last;

    private record Last(Fields input, Fields output) {
    }

    Appender(Fields more, String what) {
      this.more = more;
      this.what = what;
    }

    Fields more() {
      return more;
    }

    /** At build time, see {@link TridentFields#concat}. */
    Fields outputOn(Fields input) {
      return concat(input, more, what);
    }

    /** @return the fields of the tuples made from a record with fields {@code input} */
    Fields outputOf(Fields input) {
      Last l = last;
      if (l != null && l.input == input) {
        return l.output;
      }
      Fields out;
      try {
        out = concat(input, more, what);
      } catch (IllegalArgumentException e) {
        throw new InvalidRecordException(e.getMessage() + ". No replay can change it: the pipeline stops");
      }
      last = new Last(input, out);
      return out;
    }
  }
}
