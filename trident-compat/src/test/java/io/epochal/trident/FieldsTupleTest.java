package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.trident.tuple.TridentTupleView;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

class FieldsTupleTest {
  private final TridentTuple tuple = EpochalTrident.tuple(new Fields("word", "count", "flag"),
      Arrays.asList("the", 3L, null));

  @Test
  void shouldActLikeStormsTupleView() {
    TridentTuple storm = TridentTupleView.createFreshTuple(new Fields("word", "count", "flag"), "the", 3L, null);
    assertEquals(storm, tuple);
    assertEquals(tuple, storm);
    assertEquals(storm.hashCode(), tuple.hashCode());
    assertEquals("the", tuple.getStringByField("word"));
    assertEquals(3L, tuple.getLong(1));
    assertEquals(1, tuple.fieldIndex("count"));
    assertTrue(tuple.contains("flag"));
    assertEquals(List.of(3L, "the"), tuple.select(new Fields("count", "word")));
    assertThrows(UnsupportedOperationException.class, () -> tuple.getValues().set(0, "x"));
    assertThrows(IllegalArgumentException.class, () -> EpochalTrident.tuple(new Fields("a"), List.of(1, 2)));
  }

  @Test
  void shouldProjectToStormsOwnTupleClassAndAppendOutputs() {
    TridentTuple projected = FieldsTuple.project(tuple, new Fields("count"));
    assertTrue(projected instanceof TridentTupleView, "Storm's projection factories need their own class");
    assertEquals(List.of(3L), projected.getValues());
    TridentFields.Appender len = new TridentFields.Appender(new Fields("len"), "test");
    TridentTuple appended = FieldsTuple.append(tuple, len.outputOf(tuple.getFields()), len.more(), List.of(3), "test");
    assertEquals(new Fields("word", "count", "flag", "len").toList(), appended.getFields().toList());
    assertEquals(List.of("the"), EpochalTrident.key(new Fields("word")).apply(tuple));
  }
}
