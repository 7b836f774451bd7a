package io.epochal.store.postgres.internal;

import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableKey;
import java.util.List;
import java.util.Objects;

/**
 * What PostgreSQL can keep exactly: the checks of keys and values before they are bound. Stateless and thread-safe.
 * Internal.
 */
public final class Storable {
  private Storable() {
  }

  /**
   * Checks keys before they are bound: each is non-null, of table {@code h}'s schema, and passes {@link #checkKey}.
   *
   * @param h the table the keys are for
   * @param keys the keys to check
   * @throws NullPointerException if a key is null
   * @throws IllegalArgumentException if a key has another schema or holds what PostgreSQL cannot keep exactly
   */
  public static void checkKeys(PgTable h, List<TableKey> keys) {
    for (TableKey k : keys) {
      Objects.requireNonNull(k, "key");
      if (!k.schema().equals(h.schema())) {
        throw new IllegalArgumentException("key " + k + " does not match the schema of table " + h.schema().path());
      }
      checkKey(h, k);
    }
  }

  /**
   * Applies {@link #check} to a key's parts, without copying them: only string and double parts are checked.
   *
   * @param h the table the key is for, whose schema gives the key columns
   * @param key the key to check; its schema must be {@code h}'s
   * @throws IllegalArgumentException if a string part holds U+0000 or a double part is a non-canonical NaN
   */
  public static void checkKey(PgTable h, TableKey key) {
    List<Column> columns = h.schema().userKeyColumns();
    for (int i = 0; i < columns.size(); i++) {
      Object p = key.get(i);
      if (p instanceof String s && s.indexOf('\0') >= 0 || p instanceof Double) {
        check(h, List.of(p), List.of(columns.get(i)), true, key);
      }
    }
  }

  /**
   * Rejects what PostgreSQL cannot keep exactly: a string holding U+0000, and (in key columns) a NaN other than
   * Java's canonical one, whose bits the {@code hash} depends on.
   *
   * @param h the table the values are for; its path is named in the message
   * @param parts the values to check, one per column of {@code columns}, null where absent
   * @param columns the columns of {@code parts}, in the same order
   * @param key whether {@code parts} are key parts (then NaN payloads are checked too) or row values
   * @param what the key or row the parts belong to, named in the message
   * @throws IllegalArgumentException if a part cannot be kept exactly; the message names the table, the key or row
   *     and the column
   */
  public static void check(PgTable h, List<Object> parts, List<Column> columns, boolean key, Object what) {
    for (int i = 0; i < parts.size(); i++) {
      Object p = parts.get(i);
      Column c = columns.get(i);
      if (p instanceof String s && s.indexOf('\0') >= 0) {
        throw new IllegalArgumentException((key ? "key " : "row ") + what + " of table " + h.schema().path() + ": column '"
            + c.name() + "' holds "
            + "U+0000, which PostgreSQL text cannot store");
      }
      if (key && c.type() == ColumnType.DOUBLE && p instanceof Double d && d.isNaN()
          && Double.doubleToRawLongBits(d) != Double.doubleToRawLongBits(Double.NaN)) {
        throw new IllegalArgumentException("key " + what + " of table " + h.schema().path() + ": key column '" + c.name()
            + "' holds a "
            + "NaN with payload bits " + Long.toHexString(Double.doubleToRawLongBits(d)) + ", which PostgreSQL "
            + "does not keep (use Double.NaN)");
      }
    }
  }
}
