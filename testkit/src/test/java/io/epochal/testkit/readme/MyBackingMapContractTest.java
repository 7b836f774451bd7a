package io.epochal.testkit.readme;

import io.epochal.state.IBackingMap;
import io.epochal.testkit.store.BackingMapContract;

/** The README's backing-map contract snippet, verbatim (examples' ReadmeSnippetsTest compares it), run. */
// README begin backing-map-contract
class MyBackingMapContractTest extends BackingMapContract<String, Long> {
  @Override protected IBackingMap<String, Long> createMap() { return new MyBackingMap<>(); }
  @Override protected String key(int i) { return "key-" + i; }
  @Override protected Long cell(int i) { return 7L * i + 1; }
}
// README end backing-map-contract
