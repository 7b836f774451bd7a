package io.epochal.store.postgres.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The physical format of a store's schema ({@code epochal_meta.format}), its check on open, and the migration from
 * format 1. Stateless.
 *
 * <ul>
 *   <li>{@code epochal-postgres/1}: uint64 columns (the {@code hash} among them) as {@code numeric(20,0)} with a
 *       range {@code CHECK};
 *   <li>{@code epochal-postgres/2} (current): uint64 columns as {@code bigint} holding the value with its top bit
 *       flipped ({@link PgTypes#toStored}), which sorts as the unsigned values do and costs an 8-byte compare.
 * </ul>
 */
public final class StoreFormat {
  /** The format this version writes and reads. */
  public static final String CURRENT = "epochal-postgres/2";
  /** The format before uint64 columns became biased {@code bigint}s. */
  public static final String V1 = "epochal-postgres/1";

  /** The first key of the advisory locks of this library ("EPOC"); the second is {@code hashtext(schema)}. */
  private static final int ADVISORY_CLASS = 0x45504f43;

  private StoreFormat() {
  }

  /**
   * Takes the transaction-scoped advisory lock of the store's schema {@code pgSchema} (unquoted): opening a store,
   * creating tables and migrating hold it, so workers starting at once do each once.
   *
   * @param c a connection with auto-commit off; the lock is released when its transaction ends
   * @param pgSchema the PostgreSQL schema of the store, unquoted (hashed into the lock's second key)
   * @throws SQLException if the statement fails
   */
  public static void lock(Connection c, String pgSchema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(?))")) {
      ps.setInt(1, ADVISORY_CLASS);
      ps.setString(2, pgSchema);
      ps.execute();
    }
  }

  /**
   * Reads the format a store schema records.
   *
   * @param c a connection to the store's database
   * @param qs the store's PostgreSQL schema, quoted ({@link Names#quote}); its {@code epochal_meta} table must exist
   * @return the format recorded in {@code qs.epochal_meta}, or null if none is
   * @throws SQLException if the query fails (e.g. the table does not exist)
   */
  public static String read(Connection c, String qs) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT value FROM " + qs + ".epochal_meta WHERE key = 'format'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /**
   * Refuses to open a store whose format this version does not read.
   *
   * @param format the format the schema records ({@link #read}), possibly null
   * @param pgSchema the PostgreSQL schema of the store, unquoted, named in the message
   * @param endpoint {@code host:port/database} of the server, named in the message
   * @throws StoreException (not retryable) unless {@code format} is {@link #CURRENT}; for {@link #V1} the message
   *     says how to migrate
   */
  public static void check(String format, String pgSchema, String endpoint) {
    if (CURRENT.equals(format)) {
      return;
    }
    throw new StoreException("schema " + pgSchema + " at " + endpoint + " holds a store of format " + format
        + ", this version reads " + CURRENT + (V1.equals(format)
            ? " (format 1 kept uint64 columns as numeric(20,0), format 2 keeps them as bigint with the top bit "
            + "flipped): migrate it in place with PostgresFormatMigration.migrate(dataSource, \"" + pgSchema + "\")"
            : "; use another schema (builder .schema(..)) or migrate it"), null, false, ErrorContext.NONE);
  }

  /**
   * Rewrites every registered table of a format-1 schema to format 2, inside the caller's transaction (which must
   * hold the schema's advisory lock): drops the range checks of its uint64 columns, converts each to {@code bigint}
   * as {@code value - 2^63} (the same 64 bits as {@link PgTypes#toStored}), and records the new format. The rows'
   * {@code $crc} covers the logical values, so every row still checks.
   *
   * @param c the connection of the caller's transaction, holding the schema's advisory lock ({@link #lock})
   * @param qs the store's PostgreSQL schema, quoted ({@link Names#quote})
   * @return the number of tables rewritten
   * @throws SQLException if a statement fails; the caller rolls back the transaction
   */
  public static int migrateV1(Connection c, String qs) throws SQLException {
    List<String[]> tables = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT table_name, schema FROM " + qs + ".epochal_tables ORDER BY path")) {
      while (rs.next()) {
        tables.add(new String[] {rs.getString(1), rs.getString(2)});
      }
    }
    for (String[] t : tables) {
      TableSchema schema = SchemaText.read(t[1]);
      String qualified = qs + "." + Names.quote(t[0]);
      List<String> checks = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT conname FROM pg_constraint WHERE contype = 'c' AND conrelid = ?::regclass")) {
        ps.setString(1, qualified);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            checks.add(rs.getString(1));
          }
        }
      }
      StringBuilder alter = new StringBuilder("ALTER TABLE ").append(qualified);
      boolean first = true;
      for (String check : checks) {
        alter.append(first ? " " : ", ").append("DROP CONSTRAINT ").append(Names.quote(check));
        first = false;
      }
      for (Column col : schema.columns()) {
        if (col.type() == ColumnType.UINT64) {
          String name = Names.quote(col.name());
          alter.append(first ? " " : ", ").append("ALTER COLUMN ").append(name).append(" TYPE bigint USING (")
              .append(name).append(" - 9223372036854775808)::bigint");
          first = false;
        }
      }
      if (!first) {
        try (Statement st = c.createStatement()) {
          st.execute(alter.toString());
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + qs + ".epochal_meta SET value = ? WHERE key = "
        + "'format'")) {
      ps.setString(1, CURRENT);
      ps.executeUpdate();
    }
    return tables.size();
  }
}
