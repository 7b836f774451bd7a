package io.epochal.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} options of a child run. */
public final class Options {
  private final Map<String, String> values = new LinkedHashMap<>();

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

  public int intValue(String key, int dflt) {
    String v = values.get(key);
    return v == null ? dflt : Integer.parseInt(v);
  }

  public long longValue(String key, long dflt) {
    String v = values.get(key);
    return v == null ? dflt : Long.parseLong(v);
  }

  public String get(String key, String dflt) {
    return values.getOrDefault(key, dflt);
  }

  public Options put(String key, Object value) {
    values.put(key, String.valueOf(value));
    return this;
  }

  public Map<String, String> asMap() {
    return values;
  }
}
