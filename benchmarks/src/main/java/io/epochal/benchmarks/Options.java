package io.epochal.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} options of a child run, in the order given; mutable and not thread-safe. */
public final class Options {
  private final Map<String, String> values = new LinkedHashMap<>();

  /**
   * Parses command-line arguments of the form {@code key=value}; a later duplicate key replaces the earlier value.
   *
   * @param args the command line
   * @param from the index of the first option in {@code args} (the arguments before it are skipped)
   * @return the options parsed
   * @throws IllegalArgumentException if an argument from {@code from} on has no {@code =}
   */
  public static Options parse(String[] args, int from) {
    Options o = new Options();
    for (int i = from; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value, got " + args[i]);
      }
      o.values.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    return o;
  }

  /**
   * Reads an integer option.
   *
   * @param key the option name
   * @param dflt the value returned when the option is absent
   * @return the option's value, or {@code dflt} if absent
   * @throws NumberFormatException if the value is not an integer
   */
  public int intValue(String key, int dflt) {
    String v = values.get(key);
    return v == null ? dflt : Integer.parseInt(v);
  }

  /**
   * Reads a long option.
   *
   * @param key the option name
   * @param dflt the value returned when the option is absent
   * @return the option's value, or {@code dflt} if absent
   * @throws NumberFormatException if the value is not a long
   */
  public long longValue(String key, long dflt) {
    String v = values.get(key);
    return v == null ? dflt : Long.parseLong(v);
  }

  /**
   * Reads a string option.
   *
   * @param key the option name
   * @param dflt the value returned when the option is absent (may be {@code null})
   * @return the option's value, or {@code dflt} if absent
   */
  public String get(String key, String dflt) {
    return values.getOrDefault(key, dflt);
  }

  /**
   * Sets an option, replacing any earlier value of the key.
   *
   * @param key the option name
   * @param value the value, stored as {@link String#valueOf(Object)}
   * @return this option set, for chaining
   */
  public Options put(String key, Object value) {
    values.put(key, String.valueOf(value));
    return this;
  }

  /** @return the live, mutable map of the options in insertion order (not a copy) */
  public Map<String, String> asMap() {
    return values;
  }
}
