package io.epochal.trident;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/** Deterministic test sentences and their word counts computed by a plain loop. */
final class Sentences {
  private static final String[] WORDS = {"the", "cow", "jumped", "over", "moon", "man", "went", "to", "store",
      "four", "score", "and", "seven", "years", "ago", "how", "many", "apples", "can", "you", "eat"};

  private Sentences() {
  }

  static List<String> make(int n, long seed) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int len = 3 + r.nextInt(6);
      StringBuilder sb = new StringBuilder();
      for (int w = 0; w < len; w++) {
        sb.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(r.nextBoolean() ? 5 : WORDS.length)]);
      }
      out.add(sb.toString());
    }
    return out;
  }

  static Map<String, Long> counts(List<String> sentences) {
    Map<String, Long> counts = new TreeMap<>();
    for (String s : sentences) {
      for (String w : s.split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static FixedBatchSpout spout(List<String> sentences, int batchSize) {
    List<Object>[] values = new List[sentences.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = new Values(sentences.get(i));
    }
    return new FixedBatchSpout(new Fields("sentence"), batchSize, values);
  }

  static List<String> words() {
    return List.of(WORDS);
  }
}
