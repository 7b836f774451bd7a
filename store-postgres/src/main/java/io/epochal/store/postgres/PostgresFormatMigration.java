package io.epochal.store.postgres;

import io.epochal.api.Evolving;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.Names;
import io.epochal.store.postgres.internal.StoreFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Migrates, in place, a store schema written by an earlier version of {@link PostgresTableStore} to the physical
 * format this version reads, in one SQL transaction (all tables or none) holding the schema's advisory lock, so no
 * store opens the schema meanwhile. Stop the pipelines on the schema first; the migration rewrites every table.
 *
 * <p>Formats: {@code epochal-postgres/1} kept uint64 columns (the key {@code hash} among them) as
 * {@code numeric(20,0)}; {@code epochal-postgres/2} keeps them as {@code bigint} holding the value with its top bit
 * flipped (the same order, an 8-byte compare). Stateless and thread-safe.
 *
 * @since 0.4.0
 */
@Evolving
public final class PostgresFormatMigration {
  private PostgresFormatMigration() {
  }

  /**
   * Migrates the store in PostgreSQL schema {@code schema} of {@code dataSource} to the current format.
   *
   * @param dataSource where the store's database is; one connection is taken and closed, the data source is not
   * @param schema the PostgreSQL schema (namespace) of the store, unquoted, as given to
   *     {@link PostgresTableStore.Builder#schema}; at most 63 bytes in UTF-8
   * @return the number of tables rewritten; 0 if the schema already holds the current format
   * @throws StoreException (not retryable) if the schema holds no Epochal store or a format this version cannot
   *     migrate; (retryable) if the server fails, in which case nothing was changed
   */
  public static int migrate(DataSource dataSource, String schema) {
    Objects.requireNonNull(dataSource, "dataSource");
    Names.check(Objects.requireNonNull(schema, "schema"), "schema");
    String qs = Names.quote(schema);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        StoreFormat.lock(c, schema);
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
          ps.setString(1, qs + ".epochal_meta");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (!rs.getBoolean(1)) {
              throw new StoreException("schema " + schema + " holds no Epochal store (no epochal_meta table)", null,
                  false, ErrorContext.NONE);
            }
          }
        }
        String format = StoreFormat.read(c, qs);
        int tables;
        if (StoreFormat.CURRENT.equals(format)) {
          tables = 0;
        } else if (StoreFormat.V1.equals(format)) {
          tables = StoreFormat.migrateV1(c, qs);
        } else {
          throw new StoreException("schema " + schema + " holds a store of format " + format + ", which this version ("
              + StoreFormat.CURRENT + ") cannot migrate", null, false, ErrorContext.NONE);
        }
        c.commit();
        return tables;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("migrating schema " + schema + " failed, nothing was changed: " + e.getMessage(), e,
          true, ErrorContext.NONE);
    }
  }
}
