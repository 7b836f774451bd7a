package io.epochal.store.postgres;

import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * Lookups of a {@link PostgresTableStore}: each distinct key asked once, in statements of at most
 * {@link PostgresTableStore#CHUNK} keys bound as arrays, every row checked as it is read (a failed read is never an
 * absent row). Runs on a pooled connection or in a transaction's. Thread-safe (stateless apart from its hook).
 */
final class RowLookup {
  private final ReadHook readHook;

  RowLookup(ReadHook readHook) {
    this.readHook = readHook;
  }

  /** Looks up {@code keys} (checked) on {@code c}, in the current transaction if one is open. */
  List<Optional<Row>> lookup(Connection c, TableHandle h, List<TableKey> keys) throws SQLException {
    // each distinct key is asked once; slot[i] is the position of keys[i] among the distinct keys
    HashMap<TableKey, Integer> index = new HashMap<>(Math.max(16, keys.size() * 4 / 3 + 1));
    List<TableKey> distinct = new ArrayList<>(keys.size());
    int[] slot = new int[keys.size()];
    for (int i = 0; i < slot.length; i++) {
      TableKey k = keys.get(i);
      Integer at = index.putIfAbsent(k, distinct.size());
      if (at == null) {
        slot[i] = distinct.size();
        distinct.add(k);
      } else {
        slot[i] = at;
      }
    }
    Row[] found = new Row[distinct.size()];
    for (int from = 0; from < distinct.size(); from += PostgresTableStore.CHUNK) {
      List<TableKey> chunk = distinct.subList(from, Math.min(distinct.size(), from + PostgresTableStore.CHUNK));
      try (PreparedStatement ps = c.prepareStatement(h.pg.lookupSql())) {
        bind(ps, h.pg.keyArrays(c, chunk));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            int at = from + (int) rs.getLong(1) - 1;
            found[at] = h.pg.readRow(distinct.get(at), rs, 2, readHook);
          }
        }
      }
    }
    Optional<Row>[] out = newOptionals(keys.size());
    for (int i = 0; i < slot.length; i++) {
      out[i] = Optional.ofNullable(found[slot[i]]);
    }
    return Collections.unmodifiableList(Arrays.asList(out));
  }

  @SuppressWarnings("unchecked")
  private static Optional<Row>[] newOptionals(int size) {
    return (Optional<Row>[]) new Optional<?>[size];
  }

  /** Binds {@code arrays} as the parameters of {@code ps}, in order. */
  static void bind(PreparedStatement ps, Array[] arrays) throws SQLException {
    for (int i = 0; i < arrays.length; i++) {
      ps.setArray(i + 1, arrays[i]);
    }
  }
}
