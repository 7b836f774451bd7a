package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.storm.trident.state.JSONNonTransactionalSerializer;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.JSONTransactionalSerializer;
import org.apache.storm.trident.state.Serializer;
import org.apache.storm.trident.state.StateType;
import org.junit.jupiter.api.Test;

class TridentJsonCodecTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void shouldReadTheOpaqueLayoutWithLongs() {
    Codec<OpaqueValue<Object>> codec = EpochalTrident.opaqueJsonCodec();
    assertEquals(new OpaqueValue<>(12L, Optional.of(5L), 7), codec.decode(utf8("[7,12,5]")));
    assertEquals(OpaqueValue.first(3L, 1), codec.decode(utf8("[1,3,null]")));
    assertEquals(new OpaqueValue<>(1L << 40, Optional.of("x\"y"), 9),
        codec.decode(utf8("[9,1099511627776,\"x\\\"y\"]")));
    OpaqueValue<Object> nested = codec.decode(utf8("[2,[1,\"a\",2.5],{\"k\":1}]"));
    assertEquals(Arrays.asList(1L, "a", 2.5), nested.curr());
    assertEquals(Map.of("k", 1L), nested.prev().orElseThrow());
  }

  @Test
  void shouldWriteTheBytesTridentWrites() {
    Codec<OpaqueValue<Object>> opaque = EpochalTrident.opaqueJsonCodec();
    assertEquals("[7,12,5]", text(opaque.encode(OpaqueValue.of(12L, 5L, 7))));
    assertEquals("[1,3,null]", text(opaque.encode(OpaqueValue.first(3L, 1))));
    Codec<TransactionalValue<Object>> tx = EpochalTrident.transactionalJsonCodec();
    assertEquals("[4,10]", text(tx.encode(new TransactionalValue<>(10L, 4))));
    assertEquals(new TransactionalValue<>(10L, 4), tx.decode(utf8("[4,10]")));
    Codec<Object> value = EpochalTrident.jsonValueCodec();
    assertEquals("10", text(value.encode(10L)));
    assertEquals(10L, value.decode(utf8("10")));
    assertEquals(2.5, value.decode(utf8("2.5")));
    assertEquals(List.of(1L, "w"), value.decode(utf8("[1,\"w\"]")));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldReadWhatStormsSerializersWriteAndTheOtherWayRound() {
    Codec<OpaqueValue<Object>> opaque = EpochalTrident.opaqueJsonCodec();
    byte[] storm = new JSONOpaqueSerializer().serialize(new org.apache.storm.trident.state.OpaqueValue(7L, 12, 5));
    assertEquals(new OpaqueValue<>(12L, Optional.of(5L), 7), opaque.decode(storm));
    org.apache.storm.trident.state.OpaqueValue back = new JSONOpaqueSerializer()
        .deserialize(opaque.encode(OpaqueValue.of(12L, 5L, 7)));
    assertEquals(7L, back.getCurrTxid());
    assertEquals(12, back.getCurr()); // Storm's own reader: Integer, the pain point

    Codec<TransactionalValue<Object>> tx = EpochalTrident.transactionalJsonCodec();
    byte[] stormTx = new JSONTransactionalSerializer()
        .serialize(new org.apache.storm.trident.state.TransactionalValue(4L, 10));
    assertEquals(new TransactionalValue<>(10L, 4), tx.decode(stormTx));

    Codec<Object> value = EpochalTrident.jsonValueCodec();
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("k", 1);
    map.put("l", List.of(2, "x"));
    assertEquals(Map.of("k", 1L, "l", List.of(2L, "x")),
        value.decode(new JSONNonTransactionalSerializer().serialize(map)));
  }

  @Test
  void shouldRefuseCellsEpochalCannotHold() {
    Codec<OpaqueValue<Object>> opaque = EpochalTrident.opaqueJsonCodec();
    assertThrows(CodecException.class, () -> opaque.decode(utf8("[null,1,null]")));
    assertThrows(CodecException.class, () -> opaque.decode(utf8("[3,null,1]")));
    assertThrows(CodecException.class, () -> opaque.decode(utf8("[0,1,null]")));
    assertThrows(CodecException.class, () -> opaque.decode(utf8("[3,1]")));
    assertThrows(CodecException.class, () -> opaque.decode(utf8("[3,1,2] x")));
    assertThrows(CodecException.class, () -> opaque.decode(utf8("garbage")));
    Codec<TransactionalValue<Object>> tx = EpochalTrident.transactionalJsonCodec();
    assertThrows(CodecException.class, () -> tx.decode(utf8("[\"4\",10]")));
    Codec<Object> value = EpochalTrident.jsonValueCodec();
    assertThrows(CodecException.class, () -> value.decode(utf8("null")));
    CodecException notJson = assertThrows(CodecException.class, () -> value.encode(new StringBuilder("x")));
    assertTrue(notJson.getMessage().contains("not a JSON value"), notJson.getMessage());
    assertThrows(CodecException.class, () -> value.encode(Double.NaN));
    assertThrows(CodecException.class, () -> value.encode(Map.of(1, 2)));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldGiveStormALongSafeDropInSerializer() {
    Serializer opaque = EpochalTrident.longSafeSerializer(StateType.OPAQUE);
    byte[] bytes = new JSONOpaqueSerializer().serialize(new org.apache.storm.trident.state.OpaqueValue(7L, 12, null));
    assertArrayEquals(bytes, opaque.serialize(new org.apache.storm.trident.state.OpaqueValue(7L, 12L, null)));
    org.apache.storm.trident.state.OpaqueValue read =
        (org.apache.storm.trident.state.OpaqueValue) opaque.deserialize(bytes);
    assertEquals(12L, read.getCurr());
    assertEquals(null, read.getPrev());
    Serializer tx = EpochalTrident.longSafeSerializer(StateType.TRANSACTIONAL);
    org.apache.storm.trident.state.TransactionalValue tv = (org.apache.storm.trident.state.TransactionalValue)
        tx.deserialize(utf8("[4,10]"));
    assertEquals(10L, tv.getVal());
    assertEquals(4L, tv.getTxid());
    assertEquals(10L, EpochalTrident.longSafeSerializer(StateType.NON_TRANSACTIONAL).deserialize(utf8("10")));
    assertThrows(CodecException.class, () -> opaque.deserialize(utf8("[null,1,2]")));
  }

  @Test
  void shouldMapTridentKeysToOneJsonColumn() {
    var keys = EpochalTrident.keyCodec();
    var schema = io.epochal.store.table.TableSchema.builder("t").key(keys.columns().get(0))
        .value("v", io.epochal.store.table.ColumnType.INT64).build();
    assertEquals("[\"banner\",3]", keys.toParts(Arrays.asList("banner", 3)).get(0));
    assertEquals(keys.toKey(schema, Arrays.asList("banner", 3)), keys.toKey(schema, Arrays.asList("banner", 3L)));
    assertEquals(Arrays.asList("banner", 3L), keys.fromKey(keys.toKey(schema, Arrays.asList("banner", 3))));
  }
}
