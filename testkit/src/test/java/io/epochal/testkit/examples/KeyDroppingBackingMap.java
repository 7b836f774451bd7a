package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A wrong user backing map: a {@code multiPut} of more than three cells silently drops the last one (a batch API
 * with a size limit whose overflow nobody checks). Before issue 17 the timeline logged the arguments of the put,
 * so the dropped cell showed as written.
 */
final class KeyDroppingBackingMap<C> implements IBackingMap<String, C> {
  private final Map<String, C> cells = new ConcurrentHashMap<>();

  @Override
  public Map<String, C> multiGet(Collection<? extends String> keys) {
    Map<String, C> found = new HashMap<>();
    for (String key : keys) {
      C cell = cells.get(key);
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return java.util.Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<String, C> put) {
    int n = 0;
    for (Iterator<Map.Entry<String, C>> it = put.entrySet().iterator(); it.hasNext();) {
      Map.Entry<String, C> e = it.next();
      if (++n == put.size() && n > 3) {
        return; // the bug: the overflow cell is dropped without a word
      }
      cells.put(e.getKey(), e.getValue());
    }
  }
}
