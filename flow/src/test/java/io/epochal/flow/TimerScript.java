package io.epochal.flow;

import io.epochal.codec.Codecs;
import io.epochal.store.table.KeyCodec;
import java.util.List;

/**
 * A test processor driven by commands: {@code add KEY TRIGGER [PAYLOAD]}, {@code del KEY TRIGGER}; the key of a
 * command is its second word. A fired timer emits {@code KEY@TRIGGER[:PAYLOAD]}, counts itself in state
 * {@code fired}, and, if its payload is {@code again-N} with N > 0, adds the timer (KEY, TRIGGER + 10, again-(N-1)).
 * Processing-time timers by default.
 */
class TimerScript implements KeyedProcessor<String, String, String> {
  static final StateSpec<String, Long> FIRED = StateSpec.internal("fired", KeyCodec.strings(), Codecs.longs(), 0L)
      .build();

  private final TimeDomain domain;
  private final int maxFired;
  private final int pageSize;
  TimerClient<String, String> timers;
  StateClient<String, Long> fired;

  TimerScript() {
    this(TimeDomain.PROCESSING_TIME, 10_000, 1024);
  }

  TimerScript(TimeDomain domain, int maxFired, int pageSize) {
    this.domain = domain;
    this.maxFired = maxFired;
    this.pageSize = pageSize;
  }

  /** The key of a command. */
  static String key(String command) {
    return command.split(" ")[1];
  }

  @Override
  public void init(ProcessorContext<String> context) {
    fired = context.state(FIRED);
    timers = context.timers(TimerSpec.withPayload("t", domain, Codecs.strings(), Codecs.strings())
        .maxFiredPerBatch(maxFired).pageSize(pageSize).build());
  }

  @Override
  public void process(String key, List<String> records, Emitter<String> out) {
    for (String r : records) {
      String[] w = r.split(" ");
      long trigger = Long.parseLong(w[2]);
      switch (w[0]) {
        case "add" -> {
          if (w.length > 3) {
            timers.add(key, trigger, w[3]);
          } else {
            timers.add(key, trigger);
          }
        }
        case "del" -> out.emit("del " + key + "@" + trigger + "=" + timers.delete(key, trigger));
        default -> throw new IllegalArgumentException(r);
      }
    }
  }

  @Override
  public void onTimer(String key, Timer timer, Emitter<String> out) {
    String payload = timers.payloadOf(timer).orElse(null);
    fired.accessor(key).update(n -> n + 1);
    out.emit(key + "@" + timer.trigger() + (payload == null ? "" : ":" + payload));
    if (payload != null && payload.startsWith("again-")) {
      int n = Integer.parseInt(payload.substring(6));
      if (n > 0) {
        timers.add(key, timer.trigger() + 10, "again-" + (n - 1));
      }
    }
  }
}
