package io.epochal.trident;

import io.epochal.errors.InvalidRecordException;
import io.epochal.spout.Collector;
import java.util.ArrayList;
import java.util.List;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TridentCollector}s handed to Trident code on the Epochal engine. Not thread-safe: one batch each. */
final class Collectors {
  private static final Logger LOG = LoggerFactory.getLogger(Collectors.class);

  private Collectors() {
  }

  /**
   * Makes a record of each emitted value list. {@code reportError} is logged, as Trident reports it to the UI; it
   * does not fail the batch (throw to fail it).
   */
  abstract static class Base implements TridentCollector {
    private final String source;

    Base(String source) {
      this.source = source;
    }

    final String source() {
      return source;
    }

    abstract void accept(List<Object> values);

    @Override
    public void emit(List<Object> values) {
      if (values == null) {
        throw new InvalidRecordException(source + " emitted a null value list; the pipeline stops: no replay fixes it");
      }
      accept(values);
    }

    @Override
    public void flush() {
    }

    @Override
    public void reportError(Throwable t) {
      LOG.warn("{} reported an error (logged; it does not fail the batch)", source, t);
    }
  }

  /** Buffers the emitted tuples with the given fields. */
  static final class Buffer extends Base {
    final List<TridentTuple> tuples = new ArrayList<>();
    private final Fields fields;

    Buffer(String source, Fields fields) {
      super(source);
      this.fields = fields;
    }

    @Override
    void accept(List<Object> values) {
      tuples.add(FieldsTuple.emitted(fields, values, source()));
    }
  }

  /** Forwards the emitted tuples, with the given fields, to an Epochal collector. */
  static final class Forward extends Base {
    private final Fields fields;
    private final Collector<TridentTuple> out;
    int emitted;

    Forward(String source, Fields fields, Collector<TridentTuple> out) {
      super(source);
      this.fields = fields;
      this.out = out;
    }

    @Override
    void accept(List<Object> values) {
      out.emit(FieldsTuple.emitted(fields, values, source()));
      emitted++;
    }
  }

  /** Appends each emitted value list to an input tuple (Trident's "input fields + operation fields"). */
  static final class Append extends Base {
    final List<TridentTuple> tuples = new ArrayList<>();
    private final TridentFields.Appender appender;
    private final TridentTuple input;
    private Fields all;

    Append(String source, TridentFields.Appender appender, TridentTuple input) {
      super(source);
      this.appender = appender;
      this.input = input;
    }

    @Override
    void accept(List<Object> values) {
      if (all == null) {
        all = appender.outputOf(input.getFields());
      }
      tuples.add(FieldsTuple.append(input, all, appender.more(), values, source()));
    }
  }

  /** Counts and drops the emitted tuples (a Trident StateUpdater's output, which Epochal does not stream). */
  static final class Drop extends Base {
    long dropped;

    Drop(String source) {
      super(source);
    }

    @Override
    void accept(List<Object> values) {
      dropped++;
    }
  }
}
