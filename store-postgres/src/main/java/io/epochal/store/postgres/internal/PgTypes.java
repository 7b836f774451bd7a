package io.epochal.store.postgres.internal;

import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import java.sql.ResultSet;
import java.sql.SQLException;

/** How each Epochal column type is kept in PostgreSQL: DDL, arrays for batched binds, casts, reads. Stateless. */
final class PgTypes {
  private PgTypes() {
  }

  static Object readValue(Column c, ResultSet rs, int index) throws SQLException {
    switch (c.type()) {
      case INT64: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : v;
      }
      case UINT64: {
        long v = rs.getLong(index);
        return rs.wasNull() ? null : fromStored(v);
      }
      case DOUBLE: {
        double v = rs.getDouble(index);
        return rs.wasNull() ? null : v;
      }
      case BOOLEAN: {
        boolean v = rs.getBoolean(index);
        return rs.wasNull() ? null : v;
      }
      case STRING:
        return rs.getString(index);
      case BYTES:
        return rs.getBytes(index);
      default:
        throw new AssertionError(c);
    }
  }

  /**
   * The stored {@code bigint} of a uint64 value: its 64 bits with the top bit flipped ({@code v - 2^63} as a signed
   * number), so that PostgreSQL's signed order of the stored values is the unsigned order of the values (the order
   * YTsaurus sorts uint64 keys in), with one 8-byte compare and no {@code numeric} arithmetic.
   */
  static long toStored(long uint64) {
    return uint64 ^ Long.MIN_VALUE;
  }

  /** @return the uint64 value of a stored {@code bigint} ({@link #toStored} inverted) */
  static long fromStored(long stored) {
    return stored ^ Long.MIN_VALUE;
  }

  /**
   * @return the elements of the array bound for {@code size} values of column {@code c}: a primitive array for a
   *     required int64, uint64, double or boolean column (no boxing; pgjdbc writes it in binary), else an array of the
   *     element class pgjdbc maps to the column's array type (which can hold nulls)
   */
  static Object newBound(Column c, int size) {
    if (c.required()) {
      switch (c.type()) {
        case INT64, UINT64:
          return new long[size];
        case DOUBLE:
          return new double[size];
        case BOOLEAN:
          return new boolean[size];
        default:
          break;
      }
    }
    return switch (c.type()) {
      case INT64, UINT64 -> new Long[size];
      case STRING -> new String[size];
      case DOUBLE -> new Double[size];
      case BOOLEAN -> new Boolean[size];
      case BYTES -> new byte[size][];
    };
  }

  /**
   * Sets element {@code i} of {@code elements} (made by {@link #newBound} for {@code c}) to {@code value} in its
   * stored form ({@link #toStored} for uint64).
   *
   * @throws NullPointerException if {@code value} is null and the column is required (checked before binding)
   */
  static void setBound(Column c, Object elements, int i, Object value) {
    if (elements instanceof long[] longs) {
      long v = (Long) value;
      longs[i] = c.type() == ColumnType.UINT64 ? toStored(v) : v;
    } else if (elements instanceof double[] doubles) {
      doubles[i] = (Double) value;
    } else if (elements instanceof boolean[] booleans) {
      booleans[i] = (Boolean) value;
    } else {
      ((Object[]) elements)[i] = c.type() == ColumnType.UINT64 && value != null ? (Object) toStored((Long) value)
          : value;
    }
  }

  static String ddlType(ColumnType type) {
    return switch (type) {
      case INT64 -> "bigint";
      case UINT64 -> "bigint";
      case DOUBLE -> "double precision";
      case BOOLEAN -> "boolean";
      case STRING -> "text COLLATE \"C\"";
      case BYTES -> "bytea";
    };
  }

  /** @return {@code format_type()} of the column type */
  static String formatType(ColumnType type) {
    return switch (type) {
      case INT64 -> "bigint";
      case UINT64 -> "bigint";
      case DOUBLE -> "double precision";
      case BOOLEAN -> "boolean";
      case STRING -> "text";
      case BYTES -> "bytea";
    };
  }

  static String arrayElement(ColumnType type) {
    return switch (type) {
      case INT64, UINT64 -> "int8";
      case STRING -> "text";
      case DOUBLE -> "float8";
      case BOOLEAN -> "bool";
      case BYTES -> "bytea";
    };
  }

  static String arrayCast(ColumnType type) {
    return switch (type) {
      case INT64, UINT64 -> "::int8[]";
      case DOUBLE -> "::float8[]";
      case BOOLEAN -> "::bool[]";
      case STRING -> "::text[]";
      case BYTES -> "::bytea[]";
    };
  }

  static String zero(ColumnType type) {
    return switch (type) {
      case INT64 -> "0::bigint";
      case UINT64 -> "0::bigint";
      case DOUBLE -> "0::float8";
      case BOOLEAN -> "false";
      case STRING -> "''";
      case BYTES -> "''::bytea";
    };
  }
}
