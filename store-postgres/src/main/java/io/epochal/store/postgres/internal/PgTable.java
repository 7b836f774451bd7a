package io.epochal.store.postgres.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.postgresql.PGConnection;

/**
 * One Epochal table as a PostgreSQL table: its DDL, the SQL of every operation on it, and the binding of keys and
 * rows to JDBC arrays. Immutable and thread-safe.
 *
 * <p>Columns: {@code hash bigint} (the uint64 {@code farm_hash} with its top bit flipped, so the primary key orders
 * rows as YTsaurus does), then the user key columns, then the value columns, then {@code "$crc" integer} (the CRC-32C
 * of the row's {@link RowCheck} encoding); primary key {@code (hash, key columns...)}. Types: int64 {@code bigint},
 * uint64 {@code bigint} holding the value with its top bit flipped ({@link PgTypes#toStored}: signed order of the
 * stored values = unsigned order of the values), double {@code double precision}, boolean {@code boolean},
 * string {@code text COLLATE "C"} (byte order of UTF-8, as YTsaurus sorts), bytes {@code bytea}. Key columns and
 * required value columns are {@code NOT NULL}.
 *
 * <p>Every operation on many keys or rows is one statement over arrays ({@code unnest(?, ?, ...)}), whatever the
 * number of rows (callers cut very large batches into chunks).
 */
public final class PgTable {
  /** The name of the check column, which no user column can have ({@code $} is not allowed in column names). */
  public static final String CRC_COLUMN = "$crc";
  /** Percent of each heap page filled by inserts; the rest is kept for updated row versions. */
  static final int FILLFACTOR = 80;

  private final TableSchema schema;
  private final String sqlName;
  private final String qualified;
  private final List<Column> keys;
  private final List<Column> values;
  private final String keyUnnest;
  private final String keyUnnestOrdinal;
  private final String keyJoin;
  private final String lookupSql;
  private final String upsertSql;
  private final String deleteProbeSql;
  private final String deleteSql;
  private final String scanSql;

  /**
   * Builds the SQL of every operation on the table once; nothing is sent to the server.
   *
   * @param schema the logical schema
   * @param quotedSchema the quoted PostgreSQL schema (namespace) holding the table
   * @param sqlName the table's SQL name ({@link Names#tableName}), unquoted
   * @throws IllegalArgumentException if a column name is not a valid PostgreSQL identifier ({@link Names#check})
   */
  public PgTable(TableSchema schema, String quotedSchema, String sqlName) {
    this.schema = schema;
    this.sqlName = sqlName;
    this.qualified = quotedSchema + "." + Names.quote(sqlName);
    this.keys = schema.keyColumns();
    this.values = schema.valueColumns();
    for (Column c : schema.columns()) {
      Names.check(c.name(), "column name of table " + schema.path());
    }
    StringBuilder join = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      Column c = keys.get(i);
      join.append(i == 0 ? "" : " AND ").append("t.").append(Names.quote(c.name())).append(" = u.\"$").append(i)
          .append('"').append(c.type() == ColumnType.STRING ? " COLLATE \"C\"" : "");
    }
    this.keyUnnest = "(" + input(keys, false, false) + ") AS u";
    this.keyUnnestOrdinal = "(" + input(keys, false, true) + ") AS u";
    this.keyJoin = join.toString();

    // Each key probes the primary-key index on its own: a LATERAL subquery with LIMIT 1 cannot be flattened into a
    // join, so the planner cannot pick a hash or merge join over a scan of the whole table (which it did for a plain
    // join of the bound keys with the table once the batch was large against the table's estimated size: each
    // lookup then cost what the table holds, not what the batch holds). PostgresPlanTest checks the plan.
    StringBuilder innerValues = new StringBuilder();
    StringBuilder outerValues = new StringBuilder();
    for (Column c : values) {
      innerValues.append("t.").append(Names.quote(c.name())).append(", ");
      outerValues.append("r.").append(Names.quote(c.name())).append(", ");
    }
    this.lookupSql = "SELECT u.\"$ord\", " + outerValues + "r." + Names.quote(CRC_COLUMN) + " FROM " + keyUnnestOrdinal
        + " CROSS JOIN LATERAL (SELECT " + innerValues + "t." + Names.quote(CRC_COLUMN) + " FROM " + qualified
        + " t WHERE " + keyJoin + " LIMIT 1) AS r";

    StringBuilder allColumns = new StringBuilder();
    StringBuilder allFromU = new StringBuilder();
    List<Column> all = schema.columns();
    for (int i = 0; i < all.size(); i++) {
      Column c = all.get(i);
      allColumns.append(i == 0 ? "" : ", ").append(Names.quote(c.name()));
      allFromU.append(i == 0 ? "" : ", ").append("u.\"$").append(i).append('"');
    }
    int crcAt = all.size();
    StringBuilder keyColumns = new StringBuilder();
    for (Column c : keys) {
      keyColumns.append(keyColumns.length() == 0 ? "" : ", ").append(Names.quote(c.name()));
    }
    StringBuilder set = new StringBuilder();
    for (int v = 0; v < values.size(); v++) {
      set.append(Names.quote(values.get(v).name())).append(" = u.\"$").append(keys.size() + v).append("\", ");
    }
    set.append(Names.quote(CRC_COLUMN)).append(" = u.\"$").append(crcAt).append('"');
    String crc = Names.quote(CRC_COLUMN);
    // One statement per chunk: update the rows visible to the snapshot (a row updated or deleted by a transaction
    // that committed after the snapshot fails with a serialization failure), insert the others (a row inserted by
    // such a transaction conflicts with the insert: also a serialization failure), and count both.
    this.upsertSql = "WITH u AS (" + input(all, true, true) + "), upd AS (UPDATE " + qualified + " t SET " + set + " FROM u WHERE "
        + keyJoin + " RETURNING u.\"$ord\"), ins AS (INSERT INTO " + qualified + " (" + allColumns + ", " + crc
        + ") SELECT " + allFromU + ", u.\"$" + crcAt + "\" FROM u WHERE u.\"$ord\" NOT IN (SELECT \"$ord\" FROM upd) "
        + "ON CONFLICT DO NOTHING RETURNING 1) SELECT (SELECT count(*) FROM upd), (SELECT count(*) FROM ins)";

    StringBuilder probeColumns = new StringBuilder(keyColumns);
    StringBuilder probeValues = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      probeValues.append(i == 0 ? "" : ", ").append("u.\"$").append(i).append('"');
    }
    for (Column c : values) {
      if (c.required()) {
        probeColumns.append(", ").append(Names.quote(c.name()));
        probeValues.append(", ").append(PgTypes.zero(c.type()));
      }
    }
    // Deletes the rows visible to the snapshot (concurrently updated or deleted: serialization failure); for the
    // keys that had none, inserts a placeholder row (ON CONFLICT DO NOTHING), so that a row inserted by a transaction
    // that committed after the snapshot fails too; the placeholders are deleted right after (deleteSql).
    this.deleteProbeSql = "WITH u AS (" + input(keys, false, true) + "), del AS (DELETE FROM " + qualified
        + " t USING u WHERE " + keyJoin + " RETURNING u.\"$ord\"), ins AS (INSERT INTO " + qualified + " ("
        + probeColumns + ", " + crc + ") SELECT " + probeValues + ", 0 FROM u WHERE u.\"$ord\" NOT IN (SELECT "
        + "\"$ord\" FROM del) ON CONFLICT DO NOTHING RETURNING 1) SELECT (SELECT count(*) FROM del), (SELECT count(*) "
        + "FROM ins)";
    this.deleteSql = "DELETE FROM " + qualified + " t USING " + keyUnnest + " WHERE " + keyJoin;
    this.scanSql = "SELECT " + allColumns + ", " + crc + " FROM " + qualified + " ORDER BY " + keyColumns;
  }

  /**
   * The rows of the bound arrays, one array per column of {@code columns} (then the CRCs if {@code withCrc}), as
   * columns {@code "$0", "$1", ...} (then {@code "$ord"}, the 1-based position, if {@code ordinal}). A uint64 column
   * arrives as {@code int8[]} already in its stored form ({@link PgTypes#toStored}).
   */
  private static String input(List<Column> columns, boolean withCrc, boolean ordinal) {
    StringBuilder select = new StringBuilder("SELECT ");
    StringBuilder arrays = new StringBuilder();
    StringBuilder aliases = new StringBuilder();
    int n = columns.size() + (withCrc ? 1 : 0);
    for (int i = 0; i < n; i++) {
      ColumnType type = i < columns.size() ? columns.get(i).type() : ColumnType.INT64;
      String alias = "\"$" + i + "\"";
      String in = "x." + alias;
      select.append(i == 0 ? "" : ", ").append(in).append(" AS ")
          .append(alias);
      arrays.append(i == 0 ? "" : ", ").append('?').append(i < columns.size() ? PgTypes.arrayCast(type) : "::int4[]");
      aliases.append(i == 0 ? "" : ", ").append(alias);
    }
    if (ordinal) {
      select.append(", x.\"$ord\"");
      aliases.append(", \"$ord\"");
    }
    return select + " FROM unnest(" + arrays + ")" + (ordinal ? " WITH ORDINALITY" : "") + " AS x(" + aliases + ")";
  }

  /**
   * Gives the Epochal schema this table stores.
   *
   * @return the logical schema
   */
  public TableSchema schema() {
    return schema;
  }

  /**
   * Gives the table's name in its PostgreSQL schema.
   *
   * @return the table's SQL name, unquoted
   */
  public String sqlName() {
    return sqlName;
  }

  /**
   * Gives the name to splice into SQL.
   *
   * @return the schema-qualified, quoted SQL name
   */
  public String qualifiedName() {
    return qualified;
  }

  /**
   * Builds the DDL that creates the table, with the columns, primary key and fillfactor of the class comment.
   *
   * @return the {@code CREATE TABLE} statement
   */
  public String createSql() {
    StringBuilder sb = new StringBuilder("CREATE TABLE ").append(qualified).append(" (");
    for (Column c : schema.columns()) {
      String name = Names.quote(c.name());
      sb.append(name).append(' ').append(PgTypes.ddlType(c.type()));
      if (c.required()) {
        sb.append(" NOT NULL");
      }
      sb.append(", ");
    }
    sb.append(Names.quote(CRC_COLUMN)).append(" integer NOT NULL, PRIMARY KEY (");
    for (int i = 0; i < keys.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(Names.quote(keys.get(i).name()));
    }
    // Room on every page, so that updating a row's values (the common write: a count grows) is a HOT update that
    // adds no index entry.
    return sb.append(")) WITH (fillfactor = ").append(FILLFACTOR).append(')').toString();
  }

  /**
   * Lists the columns the schema check expects to find in the catalog.
   *
   * @return the physical columns this table must have, as {@link #describeColumn} describes them, in order, the
   *     {@code "$crc"} column last
   */
  public List<String> expectedColumns() {
    List<String> out = new ArrayList<>();
    for (Column c : schema.columns()) {
      out.add(describeColumn(c.name(), PgTypes.formatType(c.type()), c.required(), c.type() == ColumnType.STRING ? "C" : ""));
    }
    out.add(describeColumn(CRC_COLUMN, "integer", true, ""));
    return out;
  }

  /**
   * Lists the primary key the schema check expects to find in the catalog.
   *
   * @return the names of the primary key columns this table must have ({@code hash}, then the key columns), in order
   */
  public List<String> expectedPrimaryKey() {
    List<String> out = new ArrayList<>();
    for (Column c : keys) {
      out.add(c.name());
    }
    return out;
  }

  /**
   * Describes a physical column in the form the schema check compares with what the catalog holds.
   *
   * @param name the column's name, unquoted
   * @param type the column's PostgreSQL type as the catalog formats it (e.g. {@code bigint})
   * @param notNull whether the column is {@code NOT NULL}
   * @param collation the column's collation (e.g. {@code C}), or empty for none
   * @return {@code name type [not null] [collate <collation>]}
   */
  public static String describeColumn(String name, String type, boolean notNull, String collation) {
    return name + " " + type + (notNull ? " not null" : "") + (collation.isEmpty() ? "" : " collate " + collation);
  }

  /**
   * Returns the lookup statement. Bind {@link #keyArrays}.
   *
   * @return the SQL that yields one row per found key (none for a key without a row), columns
   *     {@code ord, values..., $crc}, {@code ord} being the key's 1-based position in the bound arrays
   */
  public String lookupSql() {
    return lookupSql;
  }

  /**
   * Upserts rows: one row result {@code (updated, inserted)}, which must add up to the number of rows. A write-write
   * conflict fails the statement with a serialization failure (SQLState 40001). Bind {@link #rowArrays}.
   *
   * @return the upsert statement
   */
  public String upsertSql() {
    return upsertSql;
  }

  /**
   * Deletes the keys' rows visible to the snapshot and inserts a placeholder row for each other key: one row result
   * {@code (deleted, placeholders)}; if there are placeholders, run {@link #deleteSql()} on the same keys. A
   * write-write conflict fails the statement with a serialization failure. Bind {@link #keyArrays}.
   *
   * @return the delete-and-probe statement
   */
  public String deleteProbeSql() {
    return deleteProbeSql;
  }

  /**
   * Returns the statement that deletes the rows of the bound keys, without conflict probing (used to remove the
   * placeholders of {@link #deleteProbeSql()}). Bind {@link #keyArrays}.
   *
   * @return the delete statement
   */
  public String deleteSql() {
    return deleteSql;
  }

  /**
   * Returns the statement that reads the whole table; it binds nothing.
   *
   * @return the SQL that yields every row in primary key order, columns {@code hash, keys..., values..., $crc}
   */
  public String scanSql() {
    return scanSql;
  }

  /**
   * Binds keys as JDBC arrays, in their stored form (the hash and uint64 parts as {@link PgTypes#toStored} gives
   * them), for the statements that take keys.
   *
   * @param conn the connection the statement runs on, which creates the arrays
   * @param keyList the keys, of this table's schema, already checked ({@link Storable#checkKeys})
   * @return one JDBC array per key column (hash first) holding {@code keyList}'s parts, in order
   * @throws SQLException if the driver cannot create an array
   */
  public Array[] keyArrays(Connection conn, List<TableKey> keyList) throws SQLException {
    PGConnection pg = conn.unwrap(PGConnection.class); // its createArrayOf takes primitive arrays
    Array[] out = new Array[keys.size()];
    int n = keyList.size();
    long[] hashes = new long[n]; // primitive arrays: no boxing, and pgjdbc writes them in binary in one pass
    for (int i = 0; i < n; i++) {
      hashes[i] = PgTypes.toStored(keyList.get(i).hash());
    }
    out[0] = pg.createArrayOf("int8", hashes);
    for (int c = 1; c < keys.size(); c++) {
      Column column = keys.get(c);
      Object elements = PgTypes.newBound(column, n);
      for (int i = 0; i < n; i++) {
        PgTypes.setBound(column, elements, i, keyList.get(i).get(c - 1));
      }
      out[c] = pg.createArrayOf(PgTypes.arrayElement(column.type()), elements);
    }
    return out;
  }

  /**
   * Binds rows as JDBC arrays, in their stored form, for {@link #upsertSql}.
   *
   * @param conn the connection the statement runs on, which creates the arrays
   * @param rowKeys the keys of the rows to write
   * @param rowValues the values of each row, in value column order (as {@link Row#values()})
   * @param crcs the {@code $crc} of each row
   * @return one JDBC array per column (keys, values) then the CRCs, for {@link #upsertSql}
   * @throws SQLException if the driver cannot create an array
   */
  public Array[] rowArrays(Connection conn, List<TableKey> rowKeys, List<List<Object>> rowValues, int[] crcs)
      throws SQLException {
    PGConnection pg = conn.unwrap(PGConnection.class);
    List<Column> all = schema.columns();
    Array[] out = new Array[all.size() + 1];
    Array[] keyArrays = keyArrays(conn, rowKeys);
    System.arraycopy(keyArrays, 0, out, 0, keyArrays.length);
    int n = rowKeys.size();
    for (int v = 0; v < values.size(); v++) {
      Column c = values.get(v);
      Object elements = PgTypes.newBound(c, n);
      for (int i = 0; i < n; i++) {
        PgTypes.setBound(c, elements, i, rowValues.get(i).get(v));
      }
      out[keys.size() + v] = pg.createArrayOf(PgTypes.arrayElement(c.type()), elements);
    }
    out[all.size()] = pg.createArrayOf("int4", n == crcs.length ? crcs : Arrays.copyOf(crcs, n));
    return out;
  }

  /**
   * Computes the check value of a row about to be written.
   *
   * @param hash the row's key hash
   * @param rowValues the row's values, in value column order (as {@link Row#values()})
   * @return the {@code $crc} of the row: CRC-32C of its {@link RowCheck} encoding
   */
  public int crcOf(long hash, List<Object> rowValues) {
    return RowCheck.crc(RowCheck.encode(hash, values, rowValues));
  }

  /**
   * Reads the values and the CRC of {@code key}'s row from the current result row, passes the check encoding
   * through {@code hook}, checks it against the stored CRC and decodes it. With {@link ReadHook#NONE} (which returns
   * the bytes it is given) the decoding is skipped: the bytes are the encoding of the values just read, so checking
   * their CRC and the required columns is the same check.
   *
   * @param key the key the row was looked up or scanned under
   * @param rs the result set, positioned on the row to read
   * @param first the index of the first value column in the result set
   * @param hook the read hook the store was built with, {@link ReadHook#NONE} if none
   * @return the row of {@code key} with the values read
   * @throws StateCorruptedException naming the table and the key if anything does not check
   * @throws SQLException if the driver fails to read a column
   */
  public Row readRow(TableKey key, ResultSet rs, int first, ReadHook hook) throws SQLException {
    Object[] read = new Object[values.size()];
    int crc;
    try {
      for (int v = 0; v < read.length; v++) {
        read[v] = PgTypes.readValue(values.get(v), rs, first + v);
      }
      crc = rs.getInt(first + read.length);
      if (rs.wasNull()) {
        throw new IllegalArgumentException("column \"" + CRC_COLUMN + "\" is null");
      }
    } catch (IllegalArgumentException e) {
      throw corrupted(key, e);
    }
    List<Object> readList = Arrays.asList(read);
    byte[] stored = RowCheck.encode(key.hash(), values, readList);
    try {
      if (hook == ReadHook.NONE) {
        RowCheck.check(values, stored, crc, readList);
        return Row.of(key, read);
      }
      byte[] checked = hook.storedBytes(schema.path(), stored);
      return Row.of(key, RowCheck.decode(key.hash(), values, checked, crc));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw corrupted(key, e);
    }
  }

  /**
   * Reads the key of the current result row of a {@link #scanSql()} (columns from 1) and checks that its stored
   * {@code hash} is {@code farm_hash} of its key columns.
   *
   * @param rs the result set of a {@link #scanSql()}, positioned on the row to read
   * @return the row's key, of this table's schema
   * @throws StateCorruptedException naming the table and what could be read of the key
   * @throws SQLException if the driver fails to read a column
   */
  public TableKey readKey(ResultSet rs) throws SQLException {
    List<Object> parts = new ArrayList<>(keys.size() - 1);
    long rawHash = rs.getLong(1);
    String storedHash = rs.wasNull() ? null : Long.toUnsignedString(PgTypes.fromStored(rawHash));
    try {
      for (int c = 1; c < keys.size(); c++) {
        Object part = PgTypes.readValue(keys.get(c), rs, c + 1);
        if (part == null) {
          throw new IllegalArgumentException("key column '" + keys.get(c).name() + "' is null");
        }
        parts.add(part);
      }
      TableKey key = TableKey.of(schema, parts);
      if (storedHash == null || key.hash() != Long.parseUnsignedLong(storedHash)) {
        throw new IllegalArgumentException("stored hash " + storedHash + " is not farm_hash of the key, "
            + Long.toUnsignedString(key.hash()));
      }
      return key;
    } catch (RuntimeException e) {
      throw corrupted("hash=" + storedHash + " " + parts, e);
    }
  }

  /**
   * Gives where the values start in a scan's rows, for {@link #readRow}.
   *
   * @return the 1-based index of the first value column in a {@link #scanSql()} result
   */
  public int scanFirstValueColumn() {
    return keys.size() + 1;
  }

  private StateCorruptedException corrupted(TableKey key, Exception cause) {
    return corrupted((Object) key.describeParts(), cause);
  }

  private StateCorruptedException corrupted(Object key, Exception cause) {
    return new StateCorruptedException(schema.path(), key, OptionalLong.empty(),
        new IllegalArgumentException("PostgreSQL table " + qualified + ": " + cause.getMessage(), cause));
  }

  @Override
  public String toString() {
    return "Table[" + schema.path() + " as " + qualified + "]";
  }
}
