package io.epochal.state.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * Refuses keys without value equality before they reach a hash map or a store: two equal-looking keys that compare
 * by identity would be two keys (two cells, wrong counts). Refused: arrays (e.g. {@code byte[]}: use
 * {@link io.epochal.pipeline.Bytes}), classes that keep {@link Object#equals} (e.g. {@code Thread},
 * {@code StringBuilder}, {@code AtomicLong}, lambdas), records with an array component, and lists holding any of
 * those. Allowed besides value types: enums and {@link Class} (canonical instances, so identity is value equality).
 *
 * <p>The verdict per class is computed once (a {@link ClassValue}, a cache of a pure function of the class, not
 * state). Internal: not an API. Thread-safe.
 */
public final class ValueKeys {
  private static final int MAX_DEPTH = 8;
  private static final ClassValue<String> WHY_NOT = new ClassValue<>() {
    @Override
    protected String computeValue(Class<?> type) {
      return whyNot(type);
    }
  };

  private ValueKeys() {
  }

  /**
   * Why a key has no value equality, if it has none.
   *
   * @param key the key, not null
   * @return null if {@code key} has value equality, else why not and what to use instead (for a message)
   * @throws NullPointerException if {@code key} is null
   */
  public static String whyNotValueKey(Object key) {
    return whyNot(key, 0);
  }

  /**
   * Checks a key before it reaches a hash map or a store.
   *
   * @param key the key, or null (refused)
   * @param context the state (its table) named in the error
   * @param <K> the key type
   * @return {@code key}
   * @throws InvalidRecordException naming the context if {@code key} is null or has no value equality
   */
  public static <K> K require(K key, ErrorContext context) {
    if (key == null) {
      throw new InvalidRecordException("null key" + where(context) + "; null keys are errors, never dropped", null,
          context);
    }
    if (key instanceof String || key instanceof Long) {
      return key; // the common cases, without a class lookup
    }
    String why = whyNot(key, 0);
    if (why != null) {
      throw new InvalidRecordException("key " + describe(key) + where(context) + " refused: " + why, null,
          context.withKey(key));
    }
    return key;
  }

  /**
   * A short description of a key for messages: arrays by type and length, long keys cut.
   *
   * @param key the key, or null
   * @return an array's component type and length; otherwise {@code String.valueOf(key)}, cut after 200 characters
   *     (then ending in {@code ...})
   */
  public static String describe(Object key) {
    if (key != null && key.getClass().isArray()) {
      return key.getClass().getComponentType().getName() + "[" + java.lang.reflect.Array.getLength(key) + "]";
    }
    String s = String.valueOf(key);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }

  private static String where(ErrorContext context) {
    return context.table().map(t -> " (state '" + t + "')").orElse("");
  }

  private static String whyNot(Object key, int depth) {
    String why = WHY_NOT.get(key.getClass());
    if (why != null || !(key instanceof List<?> list)) {
      return why;
    }
    if (depth >= MAX_DEPTH) {
      return "it is nested deeper than " + MAX_DEPTH + " levels";
    }
    for (Object part : list) {
      if (part == null) {
        return "it has a null part";
      }
      String partWhy = whyNot(part, depth + 1);
      if (partWhy != null) {
        return "its part " + describe(part) + ": " + partWhy;
      }
    }
    return null;
  }

  /** Why keys of {@code type} compare by identity, or null if they have value equality. */
  static String whyNot(Class<?> type) {
    if (type.isArray()) {
      return type.getComponentType().getName() + "[] compares by identity (two arrays with the same contents would be "
          + "two keys); use a value key: io.epochal.pipeline.Bytes.of(array) for bytes, or a String, a List or a record";
    }
    if (type.isEnum() || type.getSuperclass() != null && type.getSuperclass().isEnum() || type == Class.class) {
      return null; // canonical instances: identity is value equality
    }
    if (type.isRecord()) {
      for (RecordComponent c : type.getRecordComponents()) {
        if (c.getType().isArray()) {
          return "record " + type.getName() + " compares its array component '" + c.getName() + "' by identity; use "
              + "a value type for it (e.g. io.epochal.pipeline.Bytes)";
        }
      }
      return null;
    }
    try {
      if (type.getMethod("equals", Object.class).getDeclaringClass() == Object.class) {
        return type.getName() + " keeps Object.equals, which compares by identity (equal-looking keys would be "
            + "different keys); use a value key: a String, a number, a List, a record or io.epochal.pipeline.Bytes";
      }
    } catch (NoSuchMethodException e) {
      throw new AssertionError("every class has equals(Object)", e);
    }
    return null;
  }
}
