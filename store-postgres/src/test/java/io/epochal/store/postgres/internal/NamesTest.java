package io.epochal.store.postgres.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NamesTest {

  @Test
  void shouldQuoteIdentifiersDoublingInnerQuotes() {
    assertEquals("\"epochal\"", Names.quote("epochal"));
    assertEquals("\"a\"\"b\"", Names.quote("a\"b"));
    assertEquals("\"$crc\"", Names.quote("$crc"));
    assertThrows(IllegalArgumentException.class, () -> Names.quote(""));
    assertThrows(IllegalArgumentException.class, () -> Names.quote("a\0b"));
    assertEquals(65, Names.quote("x".repeat(63)).length());
    IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
        () -> Names.quote("é".repeat(32)));
    assertTrue(tooLong.getMessage().contains("64 bytes"), tooLong.getMessage());
  }

  @Test
  void shouldMakeReadableSlugsOfAnyPath() {
    assertEquals("wordcount_counts_tx", Names.slug("wordcount/counts_tx"));
    assertEquals("home_app_counts", Names.slug("//home/app/counts"));
    assertEquals("table", Names.slug("/// ***"));
    assertEquals("table", Names.slug("тест"));
    assertEquals("a_b", Names.slug("A--B"));
    assertEquals(Names.SLUG_MAX, Names.slug("ab".repeat(100)).length());
    assertTrue(!Names.slug("a".repeat(39) + "/b").endsWith("_"));
  }

  @Test
  void shouldNameTablesUniquelyByIdWithinThePostgresLimit() {
    Set<String> names = new HashSet<>();
    List<String> paths = List.of("a/b", "a.b", "a_b", "A B", "a/b");
    long id = 1;
    for (String p : paths) {
      String name = Names.tableName(id++, p);
      assertTrue(name.matches("t[0-9]+_[a-z0-9_]+"), name);
      assertTrue(names.add(name), "duplicate " + name);
    }
    String longest = Names.tableName(Long.MAX_VALUE, "x".repeat(1000));
    assertTrue(longest.getBytes(StandardCharsets.UTF_8).length <= Names.MAX_IDENTIFIER_BYTES, longest);
    assertEquals("t12_3", Names.tableName(12, "3"));
    assertEquals("t1_23", Names.tableName(1, "23"));
    assertThrows(IllegalArgumentException.class, () -> Names.tableName(0, "x"));
  }
}
