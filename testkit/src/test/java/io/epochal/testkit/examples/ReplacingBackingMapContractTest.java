package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import io.epochal.testkit.store.BackingMapContract;

/** The example's correct user backing map meets the {@link BackingMapContract}. */
class ReplacingBackingMapContractTest extends BackingMapContract<String, Long> {
  @Override
  protected IBackingMap<String, Long> createMap() {
    return new ReplacingBackingMap<>();
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
