package io.epochal.trident;

import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.StateRef;
import io.epochal.pipeline.Stream;
import io.epochal.spout.Spout;
import io.epochal.state.State;
import io.epochal.trident.internal.DeclaredFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.storm.trident.state.QueryFunction;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * The stream-level operations behind {@link EpochalTrident}: streams of known fields ({@code newStream},
 * {@code withFields}), Trident's {@code stateQuery} on a stream, and the Trident shape of an aggregate's new values.
 * Stateless; the streams it returns are as thread-safe as the pipeline builder they belong to (not at all).
 */
final class TridentStreams {
  private TridentStreams() {
  }

  static Stream<TridentTuple> newStream(PipelineBuilder builder, Spout<TridentTuple, ?> spout) {
    Objects.requireNonNull(builder, "builder");
    if (!(Objects.requireNonNull(spout, "spout") instanceof SpoutSupport.Adapter adapter)) {
      throw new IllegalArgumentException("spout " + spout.name() + " (" + spout.getClass().getName() + ") was not "
          + "made by EpochalTrident.spout, so its fields are unknown: declare them with "
          + "EpochalTrident.withFields(builder.source(spout), fields)");
    }
    return new FieldsStream(builder.source(spout), adapter.outputFields());
  }

  static Stream<TridentTuple> withFields(Stream<TridentTuple> stream, Fields fields) {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(fields, "fields");
    Optional<Fields> known = FieldsStream.fieldsOf(stream);
    if (known.isPresent()) {
      if (!known.get().toList().equals(fields.toList())) {
        throw new IllegalArgumentException("the stream's fields are " + known.get() + ", not " + fields);
      }
      return stream;
    }
    return new FieldsStream(stream.map(new DeclaredFields(fields)), fields);
  }

  static <S extends State> Stream<TridentTuple> stateQuery(Stream<TridentTuple> stream, StateRef<S> state,
      Fields inputFields, QueryFunction<?, ?> function, Fields functionFields) {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(inputFields, "inputFields");
    Operations.Query<S> query = Operations.query(inputFields, Objects.requireNonNull(function, "function"),
        Objects.requireNonNull(functionFields, "functionFields"));
    Optional<Fields> output = FieldsStream.fieldsOf(stream).map(query::outputOn);
    Stream<TridentTuple> results = stream.stateQuery(Objects.requireNonNull(state, "state"),
        new Operations.Key(inputFields), query).flatMap(list -> list);
    return output.<Stream<TridentTuple>>map(fields -> new FieldsStream(results, fields)).orElse(results);
  }

  static <V> Function<KeyValue<List<Object>, V>, TridentTuple> newValues(Fields groupFields, Fields valueField) {
    Objects.requireNonNull(groupFields, "groupFields");
    Objects.requireNonNull(valueField, "valueField");
    if (valueField.size() != 1) {
      throw new IllegalArgumentException("valueField must be one field, was " + valueField);
    }
    Fields all = TridentFields.concat(groupFields, valueField, "EpochalTrident.newValues");
    return kv -> {
      List<Object> key = kv.key();
      if (key.size() != groupFields.size()) {
        throw new InvalidRecordException("EpochalTrident.newValues(" + groupFields + ", "
            + valueField + ") got key " + key + " of " + key.size() + " values; the grouping has " + groupFields.size()
            + " fields. The pipeline stops: no replay fixes it");
      }
      List<Object> values = new ArrayList<>(key.size() + 1);
      values.addAll(key);
      values.add(kv.value());
      return FieldsTuple.of(all, values);
    };
  }
}
