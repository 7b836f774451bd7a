package io.epochal.flow;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.store.table.KeyCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A test processor for delayed inputs: every processed record {@code Ev(cmd, ts)} emits {@code cmd@ts wm=W} (W the
 * watermark the processor sees) and counts itself in state {@code seen}, except {@code tick KEY} records (only their
 * timestamps count, for the watermark; they are delayed like the others); a late record under {@code SIDE_OUTPUT}
 * emits {@code late cmd@ts}.
 */
class DelayScript implements KeyedProcessor<String, Ev, String> {
  static final StateSpec<String, Long> SEEN = StateSpec.internal("seen", KeyCodec.strings(), Codecs.longs(), 0L)
      .build();

  /** Encodes an {@link Ev} as {@code ts|src|cmd}. */
  static final Codec<Ev> CODEC = new Codec<>() {
    @Override
    public byte[] encode(Ev e) {
      return (e.ts() + "|" + e.src() + "|" + e.cmd()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Ev decode(byte[] bytes) {
      String[] p = new String(bytes, StandardCharsets.UTF_8).split("\\|", 3);
      return new Ev(p[2], Long.parseLong(p[0]), Integer.parseInt(p[1]));
    }

    @Override
    public String id() {
      return "test-ev";
    }
  };

  private ProcessorContext<String> context;
  private StateClient<String, Long> seen;

  @Override
  public void init(ProcessorContext<String> ctx) {
    context = ctx;
    seen = ctx.state(SEEN);
  }

  @Override
  public void process(String key, List<Ev> records, Emitter<String> out) {
    for (Ev e : records) {
      if (e.cmd().startsWith("tick ")) {
        continue;
      }
      seen.accessor(key).update(n -> n + 1);
      out.emit(e.cmd() + "@" + e.ts() + " wm=" + context.currentWatermark());
    }
  }

  @Override
  public void processLate(String key, List<Ev> records, Emitter<String> out) {
    for (Ev e : records) {
      out.emit("late " + e.cmd() + "@" + e.ts());
    }
  }
}
