package io.epochal.trident;

import io.epochal.codec.CodecException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.Serializer;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;

/**
 * A drop-in replacement for Storm's {@code JSONOpaqueSerializer}, {@code JSONTransactionalSerializer} and
 * {@code JSONNonTransactionalSerializer} (same bytes) that reads integral numbers back as {@code Long}, so a
 * {@code Count} over a JSON-backed store survives a reload on Storm 2.6+. Tolerates what Trident tolerates (null
 * values and prev); a null txid is refused with {@link CodecException} where Storm throws a
 * {@code NullPointerException}. Thread-safe.
 */
final class LongSafeJsonSerializer implements Serializer<Object> {
  private static final long serialVersionUID = 1L;

  private final StateType type;

  LongSafeJsonSerializer(StateType type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  @Override
  public byte[] serialize(Object obj) {
    switch (type) {
      case OPAQUE: {
        OpaqueValue<?> v = (OpaqueValue<?>) obj;
        return TridentJson.write(Arrays.asList(v.getCurrTxid(), v.getCurr(), v.getPrev()), "opaque cell");
      }
      case TRANSACTIONAL: {
        TransactionalValue<?> v = (TransactionalValue<?>) obj;
        return TridentJson.write(Arrays.asList(v.getTxid(), v.getVal()), "transactional cell");
      }
      default:
        return TridentJson.write(obj, "value");
    }
  }

  @Override
  public Object deserialize(byte[] bytes) {
    Object parsed = TridentJson.parse(bytes, type + " cell");
    switch (type) {
      case OPAQUE: {
        List<?> cell = array(parsed, 3);
        return new OpaqueValue<>(TridentJson.txid(cell.get(0), "opaque cell " + cell), cell.get(1), cell.get(2));
      }
      case TRANSACTIONAL: {
        List<?> cell = array(parsed, 2);
        return new TransactionalValue<>(TridentJson.txid(cell.get(0), "transactional cell " + cell), cell.get(1));
      }
      default:
        return parsed;
    }
  }

  private List<?> array(Object parsed, int size) {
    if (!(parsed instanceof List<?> list) || list.size() != size) {
      throw new CodecException("expected a " + type + " cell, a JSON array of " + size + " elements, got " + parsed);
    }
    return list;
  }

  @Override
  public String toString() {
    return "LongSafeJsonSerializer[" + type + "]";
  }
}
