package io.epochal.store.postgres;

import static io.epochal.store.postgres.PgConnections.exec;
import static io.epochal.store.postgres.PgConnections.rollbackQuietly;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.Names;
import io.epochal.store.postgres.internal.PgTable;
import io.epochal.store.postgres.internal.SchemaText;
import io.epochal.store.postgres.internal.StoreFormat;
import io.epochal.store.table.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DDL and schema checks of a {@link PostgresTableStore} (see <i>Tables</i> of its documentation): checks the
 * server and creates the store's schema and tables ({@code epochal_meta}, {@code epochal_tables},
 * {@code epochal_leases}), creates each Epochal table with its registry row, and checks an existing one against
 * the registry's logical schema and its physical columns and primary key; all under the store schema's advisory
 * lock. Thread-safe (stateless apart from its settings).
 */
final class SchemaDdl {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableStore.class);

  private final PostgresTableStore owner;
  private final PgConnections conns;
  private final String pgSchema;
  private final String qs;
  /** {@code host:port/database} of the server, for messages. */
  private final String endpoint;
  /** The store's {@link PostgresTableStore#describe()}, for messages. */
  private final String description;

  /** @param qs the quoted {@code pgSchema} */
  SchemaDdl(PostgresTableStore owner, PgConnections conns, String pgSchema, String qs, String description) {
    this.owner = owner;
    this.conns = conns;
    this.pgSchema = pgSchema;
    this.qs = qs;
    this.endpoint = conns.endpoint;
    this.description = description;
  }

  /** Checks the server and creates the store's schema and tables if missing, under the store's advisory lock. */
  void bootstrap() {
    conns.withConnection("preparing schema " + pgSchema, null, c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT current_setting('server_version_num')::int, "
              + "current_setting('server_encoding')")) {
        rs.next();
        int version = rs.getInt(1);
        String encoding = rs.getString(2);
        if (version < 100000) {
          throw new StoreException("PostgreSQL at " + endpoint + " is version " + version + "; the store needs 10 or "
              + "later", null, false, ErrorContext.NONE);
        }
        if (!"UTF8".equalsIgnoreCase(encoding)) {
          throw new StoreException("database at " + endpoint + " has encoding " + encoding + "; the store needs a "
              + "UTF8 database (CREATE DATABASE ... ENCODING 'UTF8'), so that strings keep every character and sort "
              + "by their UTF-8 bytes", null, false, ErrorContext.NONE);
        }
      }
      exec(c, "BEGIN");
      boolean done = false;
      try {
        advisoryLock(c);
        boolean schemaExists;
        boolean metaExists;
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regnamespace(?) IS NOT NULL, "
            + "to_regclass(?) IS NOT NULL")) {
          ps.setString(1, qs);
          ps.setString(2, qs + ".epochal_meta");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            schemaExists = rs.getBoolean(1);
            metaExists = rs.getBoolean(2);
          }
        }
        if (!schemaExists) {
          exec(c, "CREATE SCHEMA " + qs);
        }
        if (!metaExists) {
          exec(c, "CREATE TABLE " + qs + ".epochal_meta (key text PRIMARY KEY, value text NOT NULL)");
          exec(c, "CREATE TABLE " + qs + ".epochal_tables (path text PRIMARY KEY, table_name text NOT NULL UNIQUE, "
              + "schema text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
          exec(c, "CREATE SEQUENCE " + qs + ".epochal_table_ids");
          exec(c, "CREATE TABLE " + qs + ".epochal_leases (name text PRIMARY KEY, generation bigint NOT NULL CHECK "
              + "(generation >= 1), owner text NOT NULL, acquired_at timestamptz NOT NULL DEFAULT now())");
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_meta VALUES ('format', ?)")) {
            ps.setString(1, PostgresTableStore.FORMAT);
            ps.executeUpdate();
          }
          LOG.info("created the Epochal store tables in schema {} at {}", pgSchema, endpoint);
        } else {
          StoreFormat.check(StoreFormat.read(c, qs), pgSchema, endpoint);
        }
        exec(c, "COMMIT");
        done = true;
      } finally {
        if (!done) {
          rollbackQuietly(c);
        }
      }
      return null;
    });
  }

  private void advisoryLock(Connection c) throws SQLException {
    StoreFormat.lock(c, pgSchema);
  }

  /**
   * {@link PostgresTableStore#openTable} on {@code c}, in one SQL transaction under the advisory lock: checks the
   * registered table against {@code schema} (logical and physical), or creates it with its registry row.
   */
  TableHandle openOrCreate(Connection c, TableSchema schema) throws SQLException {
    exec(c, "BEGIN");
    boolean done = false;
    try {
      advisoryLock(c);
      Optional<String[]> reg = registryRow(c, schema.path());
      PgTable pg;
      if (reg.isPresent()) {
        TableSchema stored = parseStored(schema.path(), reg.get()[1]);
        if (!stored.equals(schema)) {
          throw mismatch(schema.path(), schema, stored);
        }
        pg = new PgTable(schema, qs, reg.get()[0]);
        checkPhysical(c, pg);
      } else {
        long id;
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT nextval('" + qs.replace("'", "''") + ".epochal_table_ids')")) {
          rs.next();
          id = rs.getLong(1);
        }
        pg = new PgTable(schema, qs, Names.tableName(id, schema.path()));
        exec(c, pg.createSql());
        try (PreparedStatement ps = c.prepareStatement("COMMENT ON TABLE " + pg.qualifiedName() + " IS "
            + literal("Epochal table " + schema.path()))) {
          ps.execute();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_tables (path, table_name, "
            + "schema) VALUES (?, ?, ?)")) {
          ps.setString(1, schema.path());
          ps.setString(2, pg.sqlName());
          ps.setString(3, SchemaText.write(schema));
          ps.executeUpdate();
        }
        LOG.info("created table {} as {} in {}", schema.path(), pg.qualifiedName(), description);
      }
      exec(c, "COMMIT");
      done = true;
      return new TableHandle(owner, pg);
    } finally {
      if (!done) {
        rollbackQuietly(c);
      }
    }
  }

  /** @return the registered table {@code path}, its SQL table checked, or empty if there is none */
  Optional<TableHandle> find(Connection c, String path) throws SQLException {
    Optional<String[]> reg = registryRow(c, path);
    if (reg.isEmpty()) {
      return Optional.empty();
    }
    TableSchema stored = parseStored(path, reg.get()[1]);
    PgTable pg = new PgTable(stored, qs, reg.get()[0]);
    checkPhysical(c, pg);
    return Optional.of(new TableHandle(owner, pg));
  }

  /** @return {table_name, schema text} of {@code path} in the registry */
  private Optional<String[]> registryRow(Connection c, String path) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT table_name, schema FROM " + qs + ".epochal_tables WHERE "
        + "path = ?")) {
      ps.setString(1, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new String[] {rs.getString(1), rs.getString(2)}) : Optional.empty();
      }
    }
  }

  private TableSchema parseStored(String path, String text) {
    try {
      return SchemaText.read(text);
    } catch (RuntimeException e) {
      throw new StoreException("the registered schema of table " + path + " in " + description + " cannot be read ("
          + e.getMessage() + "); the registry (" + pgSchema + ".epochal_tables) was written by another format or "
          + "edited", e, false, ErrorContext.of(path, null));
    }
  }

  /** Checks that the SQL table of {@code pg} has exactly the expected columns and primary key. */
  private void checkPhysical(Connection c, PgTable pg) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
        + "a.attnotnull, COALESCE(co.collname, '') FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = "
        + "a.attcollation AND a.attcollation <> 0 WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT "
        + "a.attisdropped ORDER BY a.attnum")) {
      ps.setString(1, pg.qualifiedName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(PgTable.describeColumn(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getString(4)));
        }
      }
    }
    String path = pg.schema().path();
    if (columns.isEmpty()) {
      throw new StoreException("table " + path + " is registered in " + description + " as " + pg.qualifiedName()
          + ", but that table does not exist (dropped by hand?); restore it, or delete its row from " + pgSchema
          + ".epochal_tables to start the table over", null, false, ErrorContext.of(path, null));
    }
    List<String> pk = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT a.attname FROM pg_index i CROSS JOIN LATERAL "
        + "unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = "
        + "i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = to_regclass(?) AND i.indisprimary ORDER BY k.ord")) {
      ps.setString(1, pg.qualifiedName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pk.add(rs.getString(1));
        }
      }
    }
    if (!columns.equals(pg.expectedColumns()) || !pk.equals(pg.expectedPrimaryKey())) {
      throw new SchemaMismatchException(path, "PostgreSQL table " + pg.qualifiedName() + " in " + description,
          "columns " + pg.expectedColumns() + " primary key " + pg.expectedPrimaryKey(),
          "columns " + columns + " primary key " + pk);
    }
  }

  SchemaMismatchException mismatch(String path, TableSchema expected, TableSchema actual) {
    return new SchemaMismatchException(path, description, expected, actual);
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
