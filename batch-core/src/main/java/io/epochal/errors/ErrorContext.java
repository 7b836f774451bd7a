package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where an {@link EpochalException} happened: the pipeline, the state table, the key and the txid, each present
 * when the code that threw knew it. Immutable and thread-safe.
 *
 * @param pipeline the pipeline's name
 * @param table the state table's path (or a store's description when no table applies)
 * @param key the key, as text
 * @param txid the txid of the batch or cell concerned
 * @since 0.2.0
 */
@Stable
public record ErrorContext(Optional<String> pipeline, Optional<String> table, Optional<String> key, OptionalLong txid) {

  /** Nothing known. */
  public static final ErrorContext NONE =
      new ErrorContext(Optional.empty(), Optional.empty(), Optional.empty(), OptionalLong.empty());

  /**
   * Checks that no component is null.
   *
   * @param pipeline the pipeline's name, or empty if unknown
   * @param table the state table's path (or a store's description), or empty if unknown
   * @param key the key as text, or empty if unknown
   * @param txid the txid of the batch or cell concerned, or empty if unknown
   * @throws NullPointerException if a component is null (use empty values)
   */
  public ErrorContext {
    java.util.Objects.requireNonNull(pipeline, "pipeline");
    java.util.Objects.requireNonNull(table, "table");
    java.util.Objects.requireNonNull(key, "key");
    java.util.Objects.requireNonNull(txid, "txid");
  }

  /**
   * A context naming a table and a key, either of which may be null (unknown); pipeline and txid are empty.
   *
   * @param table the state table's path (or a store's description), or null if unknown
   * @param key the key, kept as {@code String.valueOf(key)}, or null if unknown
   * @return a context with the given table and key present where not null
   */
  public static ErrorContext of(String table, Object key) {
    return new ErrorContext(Optional.empty(), Optional.ofNullable(table),
        key == null ? Optional.empty() : Optional.of(String.valueOf(key)), OptionalLong.empty());
  }

  /**
   * Names the pipeline.
   *
   * @param name the pipeline's name, not null
   * @return a copy with the pipeline set (replacing any pipeline already present)
   */
  public ErrorContext withPipeline(String name) {
    return new ErrorContext(Optional.of(name), table, key, txid);
  }

  /**
   * Names the table.
   *
   * @param path the state table's path (or a store's description), not null
   * @return a copy with the table set (replacing any table already present)
   */
  public ErrorContext withTable(String path) {
    return new ErrorContext(pipeline, Optional.of(path), key, txid);
  }

  /**
   * Names the key.
   *
   * @param k the key, kept as {@code String.valueOf(k)}
   * @return a copy with the key set (replacing any key already present)
   */
  public ErrorContext withKey(Object k) {
    return new ErrorContext(pipeline, table, Optional.of(String.valueOf(k)), txid);
  }

  /**
   * Names the txid.
   *
   * @param t the txid of the batch or cell concerned
   * @return a copy with the txid set (replacing any txid already present)
   */
  public ErrorContext withTxid(long t) {
    return new ErrorContext(pipeline, table, key, OptionalLong.of(t));
  }
}
