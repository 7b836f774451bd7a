package io.epochal.testkit.readme;

import io.epochal.pipeline.Aggregators;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplaySchedule;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The README's property test of a backing map, verbatim (examples' ReadmeSnippetsTest compares it), run by jqwik. */
// README begin testkit-property
class MyStoreProperties {
  static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
      .forBackingMap(MyBackingMap<OpaqueValue<Long>>::new, OpaqueMap::factory)   // a new map per run, under a txid rule
      .aggregate((String word) -> word, Aggregators.count())  // the pipeline: groupBy(word).persistentAggregate(count)
      .build();                        // reference: the aggregation of the input, and the failure-free run beside it

  @Property
  void myStoreIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    CHECK.check(schedule);                                    // throws ReplayCheckFailure with the report
  }

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    return ReplayArbitraries.schedules(ReplayArbitraries.words(30));   // .withPoints(..), .withoutCrashes(), ...
  }
}
// README end testkit-property
