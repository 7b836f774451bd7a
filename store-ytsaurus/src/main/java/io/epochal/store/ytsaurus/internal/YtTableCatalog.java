package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The tables of a {@code YtTableStore}: opening (creating, resharding and mounting a missing table, refusing one of
 * another schema) and finding them. In pinned mode each table is a sorted dynamic table of its own; in single-table
 * mode every logical table lives in the shared table, its schema recorded there as a row, and the shared table itself
 * is created and checked once ({@link #ensureSharedTable()}). Thread-safe: it holds only immutable collaborators.
 */
public final class YtTableCatalog {
  private final Object owner;
  private final YtHttpClient client;
  private final YtCypress cypress;
  private final String proxy;
  private final String root;
  private final int tabletCount;
  private final String sharedTable;

  /**
   * Makes the catalog of the store's tables.
   *
   * @param owner the store, owner of the tables opened
   * @param client the HTTP client
   * @param cypress the Cypress client
   * @param proxy the entry proxy of the single-table mode's requests
   * @param root the root of relative table paths
   * @param tabletCount tablets per new table
   * @param sharedTable the shared table of the single-table mode, or {@code null} in pinned mode
   */
  public YtTableCatalog(Object owner, YtHttpClient client, YtCypress cypress, String proxy, String root,
      int tabletCount, String sharedTable) {
    this.owner = Objects.requireNonNull(owner, "owner");
    this.client = Objects.requireNonNull(client, "client");
    this.cypress = Objects.requireNonNull(cypress, "cypress");
    this.proxy = Objects.requireNonNull(proxy, "proxy");
    this.root = Objects.requireNonNull(root, "root");
    this.tabletCount = tabletCount;
    this.sharedTable = sharedTable;
  }

  /**
   * Single-table mode: creates and mounts the shared table if missing and checks its schema.
   *
   * @throws SchemaMismatchException if the shared table has another schema
   */
  public void ensureSharedTable() {
    ensureTable(sharedTable, SingleTableLayout.ytSchema(), YtJson.object());
    JsonNode actual = cypress.get(sharedTable + "/@schema").orElseThrow();
    if (!YtSchemas.describeYt(actual, null).equals(YtSchemas.describeYt(SingleTableLayout.ytSchema(), null))) {
      throw new SchemaMismatchException(sharedTable, YtSchemas.describeYt(SingleTableLayout.ytSchema(), null),
          YtSchemas.describeYt(actual, null));
    }
  }

  /**
   * Opens a table, creating it if missing.
   *
   * @param schema its schema
   * @return the table
   * @throws SchemaMismatchException if it exists with another schema
   */
  public Table open(TableSchema schema) {
    if (sharedTable != null) {
      return openLogical(schema);
    }
    String path = YtCypress.resolve(root, schema.path());
    Optional<TableSchema> existing = readSchema(schema.path(), path, schema);
    if (existing.isEmpty()) {
      ObjectNode attrs = YtJson.object();
      attrs.set(YtSchemas.ATTRIBUTES_ATTRIBUTE, YtSchemas.attributesToYt(schema));
      ensureTable(path, YtSchemas.toYt(schema), attrs);
      existing = readSchema(schema.path(), path, schema);
      if (existing.isEmpty()) {
        throw new StoreException("table " + path + " vanished right after it was created");
      }
    } else {
      cypress.mountAndWait(path);
    }
    return new YtTable(schema, path, owner);
  }

  /**
   * Finds the table at a path, reading its recorded schema.
   *
   * @param path a table-store path
   * @return the table there, if it exists
   */
  public Optional<Table> find(String path) {
    if (sharedTable != null) {
      return findLogical(path).map(s -> new YtTable(s, sharedTable, owner));
    }
    String ytPath = YtCypress.resolve(root, path);
    return readSchema(path, ytPath, null).map(s -> new YtTable(s, ytPath, owner));
  }

  private void ensureTable(String path, ArrayNode schema, ObjectNode attrs) {
    if (cypress.createDynamicTable(path, schema, attrs) && tabletCount > 1) {
      cypress.reshardUniform(path, tabletCount);
    }
    cypress.mountAndWait(path);
  }

  private Optional<TableSchema> readSchema(String logicalPath, String ytPath, TableSchema expected) {
    return YtTableStoreSupport.readSchema(cypress, logicalPath, ytPath, expected);
  }

  private Table openLogical(TableSchema schema) {
    Optional<TableSchema> recorded = findLogical(schema.path());
    if (recorded.isEmpty()) {
      ObjectNode p = YtJson.object().put("path", sharedTable).put("atomicity", "full");
      client.execute(new Call(YtCommand.INSERT_ROWS, p, List.of(SingleTableLayout.schemaRow(schema)), proxy,
          YtHttpClient.Phase.SETUP, null, false));
      recorded = findLogical(schema.path());
    }
    if (recorded.isEmpty() || !recorded.get().equals(schema)) {
      throw new SchemaMismatchException(schema.path(), schema, recorded.<Object>map(s -> s).orElse("nothing"));
    }
    return new YtTable(schema, sharedTable, owner);
  }

  private Optional<TableSchema> findLogical(String path) {
    ObjectNode p = YtJson.object().put("path", sharedTable).put("keep_missing_rows", true)
        .put("dump_error_into_response", true);
    List<JsonNode> rows = client.rows(new Call(YtCommand.LOOKUP_ROWS, p, List.of(SingleTableLayout.physicalKey(
        SingleTableLayout.SCHEMA_STATE_ID, path.getBytes(StandardCharsets.UTF_8))), proxy, YtHttpClient.Phase.SETUP,
        null, false));
    if (rows.size() != 1) {
      throw YtTableStoreSupport.partialAnswer(path, sharedTable, rows.size(), 1);
    }
    JsonNode doc = SingleTableLayout.schemaDocument(path, rows.get(0));
    if (doc == null) {
      return Optional.empty();
    }
    Optional<TableSchema> schema = YtSchemas.fromYt(path, doc.get("schema"), doc.get("attributes"));
    if (schema.isEmpty()) {
      throw new StoreException("the schema recorded for " + path + " in " + sharedTable + " cannot be read: " + doc,
          null, false, ErrorContext.of(path, null));
    }
    return schema;
  }
}
