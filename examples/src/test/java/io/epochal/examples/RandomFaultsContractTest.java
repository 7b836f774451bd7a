package io.epochal.examples;

import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.testkit.store.BackingMapContract;

/** The CLI's fault-injecting backing map, at failure rate 0, is a correct backing map. */
class RandomFaultsContractTest extends BackingMapContract<String, Long> {
  @Override
  protected IBackingMap<String, Long> createMap() {
    return new RandomFaults(0, 1).wrap(new InMemoryBackingMap<>("contract"));
  }

  @Override
  protected String key(int i) {
    return "key-" + i;
  }

  @Override
  protected Long cell(int i) {
    return 7L * i + 1;
  }
}
