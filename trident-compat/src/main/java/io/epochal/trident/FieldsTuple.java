package io.epochal.trident;

import io.epochal.errors.InvalidRecordException;
import java.io.Serializable;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.trident.tuple.TridentTupleView;
import org.apache.storm.tuple.Fields;

/**
 * The records of a Trident-shaped Epochal pipeline: an immutable {@link TridentTuple} of named values. Equality is
 * list equality of the values (as for Storm's {@code TridentTupleView}); values may be null. Thread-safe (immutable,
 * provided the values are not mutated).
 */
final class FieldsTuple extends AbstractList<Object> implements TridentTuple, Serializable {
  private static final long serialVersionUID = 1L;

  private final Fields fields;
  private final List<Object> values;

  private FieldsTuple(Fields fields, List<Object> values) {
    this.fields = fields;
    this.values = values;
  }

  /**
   * @throws IllegalArgumentException if the number of values differs from the number of fields
   */
  static FieldsTuple of(Fields fields, List<?> values) {
    Objects.requireNonNull(fields, "fields");
    Objects.requireNonNull(values, "values");
    if (fields.size() != values.size()) {
      throw new IllegalArgumentException("a tuple with fields " + fields + " needs " + fields.size()
          + " values, got " + values.size() + ": " + values);
    }
    return new FieldsTuple(fields, Collections.unmodifiableList(new ArrayList<>(values)));
  }

  /**
   * The tuple restricted to {@code selector} (all fields if null), in the selector's order (Trident's projection of
   * input fields), as a Storm {@code TridentTupleView}: what Trident operations are handed. Storm's projection
   * factories (used by {@code MapCombinerAggStateUpdater} and others) only accept its own tuple class, whose
   * {@link #factory(Fields)} must then be the operation context's factory.
   */
  static TridentTuple project(TridentTuple tuple, Fields selector) {
    Fields fields = selector == null ? tuple.getFields() : selector;
    List<Object> values = selector == null ? tuple.getValues() : tuple.select(selector);
    return factory(fields).create(values);
  }

  /** Storm's factory of fresh tuples with {@code fields}, one per distinct fields (cached). */
  static TridentTupleView.FreshOutputFactory factory(Fields fields) {
    return FACTORIES.computeIfAbsent(fields, TridentTupleView.FreshOutputFactory::new);
  }

  private static final java.util.concurrent.ConcurrentHashMap<Fields, TridentTupleView.FreshOutputFactory> FACTORIES =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * A tuple emitted by Trident code ({@code source}) that declared {@code fields}.
   *
   * @throws InvalidRecordException if the number of values differs from the number of fields (no replay fixes it)
   */
  static FieldsTuple emitted(Fields fields, List<?> values, String source) {
    if (fields.size() != values.size()) {
      throw new InvalidRecordException(source + " declared output fields " + fields + " but emitted " + values.size()
          + " values: " + values + ". The pipeline stops: no replay fixes it");
    }
    return new FieldsTuple(fields, Collections.unmodifiableList(new ArrayList<>(values)));
  }

  /**
   * The tuple followed by {@code more} values named {@code moreFields} ("input fields + function fields"); {@code all}
   * is the input's fields followed by {@code moreFields} (see {@link TridentFields.Appender}).
   *
   * @throws InvalidRecordException if the number of values differs from the number of {@code moreFields}
   */
  static FieldsTuple append(TridentTuple tuple, Fields all, Fields moreFields, List<?> more, String source) {
    if (moreFields.size() != more.size()) {
      throw new InvalidRecordException(source + " declared output fields " + moreFields + " but emitted "
          + more.size() + " values: " + more + ". The pipeline stops: no replay fixes it");
    }
    List<Object> values = new ArrayList<>(tuple.size() + more.size());
    values.addAll(tuple.getValues());
    values.addAll(more);
    return new FieldsTuple(all, Collections.unmodifiableList(values));
  }

  @Override
  public Object get(int index) {
    return values.get(index);
  }

  @Override
  public int size() {
    return values.size();
  }

  @Override
  public List<Object> getValues() {
    return values;
  }

  @Override
  public boolean contains(String field) {
    return fields.contains(field);
  }

  @Override
  public Fields getFields() {
    return fields;
  }

  @Override
  public int fieldIndex(String field) {
    return fields.fieldIndex(field);
  }

  @Override
  public List<Object> select(Fields selector) {
    return fields.select(selector, values);
  }

  @Override
  public Object getValue(int i) {
    return values.get(i);
  }

  @Override
  public String getString(int i) {
    return (String) values.get(i);
  }

  @Override
  public Integer getInteger(int i) {
    return (Integer) values.get(i);
  }

  @Override
  public Long getLong(int i) {
    return (Long) values.get(i);
  }

  @Override
  public Boolean getBoolean(int i) {
    return (Boolean) values.get(i);
  }

  @Override
  public Short getShort(int i) {
    return (Short) values.get(i);
  }

  @Override
  public Byte getByte(int i) {
    return (Byte) values.get(i);
  }

  @Override
  public Double getDouble(int i) {
    return (Double) values.get(i);
  }

  @Override
  public Float getFloat(int i) {
    return (Float) values.get(i);
  }

  @Override
  public byte[] getBinary(int i) {
    return (byte[]) values.get(i);
  }

  @Override
  public Object getValueByField(String field) {
    return values.get(fields.fieldIndex(field));
  }

  @Override
  public String getStringByField(String field) {
    return (String) getValueByField(field);
  }

  @Override
  public Integer getIntegerByField(String field) {
    return (Integer) getValueByField(field);
  }

  @Override
  public Long getLongByField(String field) {
    return (Long) getValueByField(field);
  }

  @Override
  public Boolean getBooleanByField(String field) {
    return (Boolean) getValueByField(field);
  }

  @Override
  public Short getShortByField(String field) {
    return (Short) getValueByField(field);
  }

  @Override
  public Byte getByteByField(String field) {
    return (Byte) getValueByField(field);
  }

  @Override
  public Double getDoubleByField(String field) {
    return (Double) getValueByField(field);
  }

  @Override
  public Float getFloatByField(String field) {
    return (Float) getValueByField(field);
  }

  @Override
  public byte[] getBinaryByField(String field) {
    return (byte[]) getValueByField(field);
  }
}
