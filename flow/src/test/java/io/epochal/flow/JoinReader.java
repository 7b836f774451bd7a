package io.epochal.flow;

import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.store.table.KeyCodec;
import java.util.List;

/**
 * A test processor reading the string state {@code v} of computation {@code writer} (a {@link TtlScript}) through a
 * joiner: on every {@code get KEY} it emits {@code join KEY=VALUE} ({@code join KEY=-} when absent); other commands
 * do nothing.
 */
class JoinReader implements KeyedProcessor<String, Ev, String> {
  private final String writer;
  private final java.time.Duration cacheTtl;
  JoinedStateClient<String, String> values;

  JoinReader(String writer, java.time.Duration cacheTtl) {
    this.writer = writer;
    this.cacheTtl = cacheTtl;
  }

  @Override
  public void init(ProcessorContext<String> context) {
    values = context.joiner(JoinSpec.internalState("v", writer, "v", KeyCodec.strings(), Codecs.strings())
        .ttl(cacheTtl).build());
  }

  @Override
  public void process(String key, List<Ev> records, Emitter<String> out) {
    for (Ev e : records) {
      if (e.cmd().startsWith("get ")) {
        out.emit("join " + key + "=" + values.accessor(key).get().orElse("-"));
      }
    }
  }
}
