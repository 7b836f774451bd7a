package io.epochal.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class PartitionedMetadataProperties {

  private static final Codec<PartitionedMetadata<String>> CODEC = PartitionedMetadata.codec(Codecs.strings());

  @Property
  void codecRoundTripsAnyMetadata(@ForAll @Size(max = 8) Map<@Size(max = 20) String, @Size(max = 20) String> map,
      @ForAll Set<Integer> picks) {
    TreeSet<String> inBatch = new TreeSet<>();
    int i = 0;
    for (String name : new TreeMap<>(map).keySet()) {
      if (picks.contains(i++)) {
        inBatch.add(name);
      }
    }
    // Strings with unpaired surrogates are not valid Unicode and cannot be encoded: skip them.
    for (String s : map.keySet()) {
      if (!isValidUnicode(s)) {
        return;
      }
    }
    for (String s : map.values()) {
      if (!isValidUnicode(s)) {
        return;
      }
    }
    PartitionedMetadata<String> m = new PartitionedMetadata<>(new TreeMap<>(map), inBatch);
    assertEquals(m, CODEC.decode(CODEC.encode(m)));
  }

  private static boolean isValidUnicode(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
