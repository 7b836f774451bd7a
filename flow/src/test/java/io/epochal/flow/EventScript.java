package io.epochal.flow;

import java.util.List;

/**
 * A {@link TimerScript} over event-time timers, driven by timestamped commands: {@link Ev} records whose command is
 * one of TimerScript's, or {@code tick KEY} (only its timestamp counts), or {@code wm KEY} (emits
 * {@code wm KEY=<watermark>}, the watermark the processor sees). A fired timer emits TimerScript's output followed by
 * {@code " wm=<watermark>"}; a late record under {@code SIDE_OUTPUT} emits {@code late <command>}.
 */
class EventScript implements KeyedProcessor<String, EventScript.Ev, String> {
  /** A command with its event time and source partition. */
  record Ev(String cmd, long ts, int src) {
    static Ev of(String cmd, long ts) {
      return new Ev(cmd, ts, 0);
    }

    String key() {
      return TimerScript.key(cmd);
    }
  }

  private final TimerScript timers;
  private ProcessorContext<String> context;

  EventScript() {
    this(10_000, 1024);
  }

  EventScript(int maxFired, int pageSize) {
    this.timers = new TimerScript(TimeDomain.EVENT_TIME, maxFired, pageSize);
  }

  /** The strategy of the tests: bounded by {@code bound} ms, source partition {@link Ev#src}. */
  static WatermarkStrategy.Builder<Ev> strategy(long bound) {
    return WatermarkStrategy.boundedOutOfOrderness(java.time.Duration.ofMillis(bound), Ev::ts)
        .sourcePartition(Ev::src);
  }

  @Override
  public void init(ProcessorContext<String> context) {
    this.context = context;
    timers.init(context);
  }

  @Override
  public void process(String key, List<Ev> records, Emitter<String> out) {
    for (Ev e : records) {
      if (e.cmd().startsWith("wm ")) {
        out.emit("wm " + key + "=" + context.currentWatermark());
      } else if (!e.cmd().startsWith("tick ")) {
        timers.process(key, List.of(e.cmd()), out);
      }
    }
  }

  @Override
  public void onTimer(String key, Timer timer, Emitter<String> out) {
    timers.onTimer(key, timer, r -> out.emit(r + " wm=" + context.currentWatermark()));
  }

  @Override
  public void processLate(String key, List<Ev> records, Emitter<String> out) {
    for (Ev e : records) {
      out.emit("late " + e.cmd());
    }
  }
}
