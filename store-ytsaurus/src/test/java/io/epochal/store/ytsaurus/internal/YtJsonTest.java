package io.epochal.store.ytsaurus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.store.ytsaurus.YtError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class YtJsonTest {

  @Test
  void shouldMapEveryByteToOneCodePointAndBack() throws IOException {
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    String json = YtJson.write(YtJson.NODES.textNode(YtJson.bytesToJson(all)));
    assertTrue(json.chars().allMatch(c -> c < 0x80), "headers and bodies are written as ASCII");
    assertArrayEquals(all, YtJson.jsonToBytes(YtJson.read(json).asText()));
  }

  @Test
  void shouldSendTextAsItsUtf8Bytes() {
    String text = "ключ 🙂";
    String wire = YtJson.textToJson(text);
    assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), YtJson.jsonToBytes(wire));
    assertEquals(text, YtJson.jsonToText(wire));
    assertThrows(IllegalArgumentException.class, () -> YtJson.jsonToBytes("\u20ac"));
  }

  @Test
  void shouldReadTabularBodiesWithNullSlots() throws IOException {
    YtJson.TabularBody body = YtJson.readRows("{\"a\":1}\nnull\n{\"a\":2}\n".getBytes(StandardCharsets.UTF_8));
    assertEquals(3, body.rows().size());
    assertTrue(body.rows().get(1).isNull());
    assertEquals(null, body.error());
    assertEquals(0, YtJson.readRows(new byte[0]).rows().size());
  }

  @Test
  void shouldParseNestedErrorsWithAttributes() throws IOException {
    JsonNode node = YtJson.read("{\"code\":1,\"message\":\"outer\",\"attributes\":{\"host\":\"h\",\"n\":3},"
        + "\"inner_errors\":[{\"code\":105,\"message\":\"a\"},{\"code\":1,\"message\":\"b\",\"inner_errors\":"
        + "[{\"code\":1700,\"message\":\"conflict\",\"attributes\":{\"table_path\":\"//t\"}}]}]}");
    YtError e = YtJson.parseError(node);
    assertEquals(List.of(1, 105, 1, 1700), e.allCodes());
    assertEquals("//t", e.find(1700).orElseThrow().attributes().get("table_path"));
    assertEquals(3L, e.attributes().get("n"));
    assertEquals(e, YtJson.parseError(YtJson.errorToJson(e)));
    assertTrue(e.toString().contains("outer (code 1)"), e.toString());
  }
}
