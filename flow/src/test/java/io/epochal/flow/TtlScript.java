package io.epochal.flow;

import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.store.table.KeyCodec;
import java.time.Duration;
import java.util.List;

/**
 * A test processor over a string state {@code v} with a TTL, driven by {@link Ev} commands: {@code set KEY VALUE},
 * {@code get KEY} (emits {@code get KEY=VALUE}, or {@code get KEY=-} when absent), {@code del KEY} (clear), and
 * {@code tick KEY} (nothing: only its timestamp counts, for the watermark).
 */
class TtlScript implements KeyedProcessor<String, Ev, String> {
  private final Duration ttl;
  private final TimeDomain domain;
  private final int maxExpirations;
  StateClient<String, String> values;

  TtlScript(Duration ttl, TimeDomain domain, int maxExpirations) {
    this.ttl = ttl;
    this.domain = domain;
    this.maxExpirations = maxExpirations;
  }

  static StateSpec<String, String> spec(Duration ttl, TimeDomain domain, int maxExpirations) {
    return StateSpec.internal("v", KeyCodec.strings(), Codecs.strings(), "").ttl(ttl, domain)
        .maxExpirationsPerBatch(maxExpirations).build();
  }

  @Override
  public void init(ProcessorContext<String> context) {
    values = context.state(spec(ttl, domain, maxExpirations));
  }

  /**
   * Also emits {@code first KEY=VALUE} when the key's first record of the batch is a {@code get}: what the key read
   * as at the batch's start (the committed state, as a joiner sees it). @return this processor
   */
  TtlScript markingFirstReads() {
    markFirst = true;
    return this;
  }

  private boolean markFirst;

  @Override
  public void process(String key, List<Ev> records, Emitter<String> out) {
    if (markFirst && records.get(0).cmd().startsWith("get ")) {
      out.emit("first " + key + "=" + values.accessor(key).get().orElse("-"));
    }
    for (Ev e : records) {
      String[] w = e.cmd().split(" ");
      switch (w[0]) {
        case "set" -> values.accessor(key).set(w[2]);
        case "get" -> out.emit("get " + key + "=" + values.accessor(key).get().orElse("-"));
        case "del" -> values.accessor(key).clear();
        case "tick" -> { }
        default -> throw new IllegalArgumentException(e.cmd());
      }
    }
  }
}
