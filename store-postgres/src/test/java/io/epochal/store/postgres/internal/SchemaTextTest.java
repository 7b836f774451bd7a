package io.epochal.store.postgres.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableSchema;
import org.junit.jupiter.api.Test;

class SchemaTextTest {

  @Test
  void shouldRebuildTheSchemaExactly() {
    TableSchema s = TableSchema.builder("//home/a b/c=d%x:y").key("k_str", ColumnType.STRING)
        .key("k_u64", ColumnType.UINT64).value("v", ColumnType.BYTES).requiredValue("r", ColumnType.DOUBLE)
        .attribute("epochal.codec", "long-be:v1").attribute("a=b", "c\nd").build();
    assertEquals(s, SchemaText.read(SchemaText.write(s)));
    assertEquals(SchemaText.write(s), SchemaText.write(SchemaText.read(SchemaText.write(s))));
  }

  @Test
  void shouldRefuseTextItDidNotWrite() {
    assertThrows(IllegalArgumentException.class, () -> SchemaText.read("schema=2\npath=x\n"));
    assertThrows(IllegalArgumentException.class, () -> SchemaText.read("schema=1\npath=x\nkey=k\n"));
    assertThrows(IllegalArgumentException.class, () -> SchemaText.read("schema=1\npath=x\nkey=k:STRING\ncolumn=y\n"));
    assertThrows(IllegalArgumentException.class, () -> SchemaText.read(""));
  }
}
