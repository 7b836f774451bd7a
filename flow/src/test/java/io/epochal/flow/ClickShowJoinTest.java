package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The click/show join of the Flow documentation: shows are counted per banner; clicks are joined to their show by
 * show id (a click may arrive batches before or after its show) through a second state keyed by show id, and counted
 * per banner. Batches are replayed (failed epoch commits, failing processors, a pipeline stopped and rebuilt), and the
 * counts must still equal an exact recount.
 */
class ClickShowJoinTest {

  /** A show of banner {@code bannerId} with id {@code showId}, or a click on show {@code showId}. */
  record Event(boolean click, String showId, String bannerId) {
    static Event show(String showId, String bannerId) {
      return new Event(false, showId, bannerId);
    }

    static Event click(String showId) {
      return new Event(true, showId, "");
    }
  }

  /** What the pipeline knows of a show: its banner (empty until the show arrived) and clicks waiting for it. */
  record ShowState(String bannerId, long pendingClicks) {
  }

  static final ShowState NO_SHOW = new ShowState("", 0);
  static final Codec<ShowState> SHOW_CODEC = Codecs.kryo(ShowState.class);

  /** Keyed by show id: joins clicks to shows, emits "show:<banner>" and "click:<banner>". */
  static final class JoinByShow implements KeyedProcessor<String, Event, String> {
    private final Set<String> failOnce;
    private final Set<String> failAlways;
    private StateClient<String, ShowState> shows;

    JoinByShow(Set<String> failOnce, Set<String> failAlways) {
      this.failOnce = failOnce;
      this.failAlways = failAlways;
    }

    @Override
    public void init(ProcessorContext<String> context) {
      shows = context.state(StateSpec.internal("show", KeyCodec.strings(), SHOW_CODEC, NO_SHOW).build());
    }

    @Override
    public void process(String showId, List<Event> events, Emitter<String> out) {
      StateAccessor<ShowState> show = shows.accessor(showId);
      ShowState s = show.getOrDefault(NO_SHOW);
      for (Event e : events) {
        if (!e.click()) {
          out.emit("show:" + e.bannerId());
          for (long i = 0; i < s.pendingClicks(); i++) {
            out.emit("click:" + e.bannerId());
          }
          s = new ShowState(e.bannerId(), 0);
        } else if (!s.bannerId().isEmpty()) {
          out.emit("click:" + s.bannerId());
        } else {
          s = new ShowState("", s.pendingClicks() + 1);
        }
      }
      show.set(s);
      if (failOnce.remove(showId) || failAlways.contains(showId)) {
        throw new IllegalStateException("injected failure processing show " + showId);
      }
    }
  }

  /** Keyed by banner: counts shows and clicks. */
  static final class CountByBanner implements KeyedProcessor<String, String, String> {
    private StateClient<String, Long> shows;
    private StateClient<String, Long> clicks;

    @Override
    public void init(ProcessorContext<String> context) {
      shows = context.state(StateSpec.internal("shows", KeyCodec.strings(), Codecs.longs(), 0L).build());
      clicks = context.state(StateSpec.internal("clicks", KeyCodec.strings(), Codecs.longs(), 0L).build());
    }

    @Override
    public void process(String bannerId, List<String> events, Emitter<String> out) {
      long showCount = events.stream().filter(e -> e.startsWith("show:")).count();
      long clickCount = events.size() - showCount;
      if (showCount > 0) {
        shows.accessor(bannerId).update(v -> v + showCount);
      }
      if (clickCount > 0) {
        clicks.accessor(bannerId).update(v -> v + clickCount);
      }
    }
  }

  private static List<List<Event>> generate(long seed, int batches, int perBatch) {
    Random random = new Random(seed);
    List<Event> all = new ArrayList<>();
    int shows = batches * perBatch / 3;
    for (int i = 0; i < shows; i++) {
      String showId = "s" + i;
      all.add(Event.show(showId, "banner" + random.nextInt(7)));
      int clicks = random.nextInt(4);
      for (int c = 0; c < clicks; c++) {
        all.add(Event.click(showId));
      }
    }
    java.util.Collections.shuffle(all, random); // clicks may come before their show, in earlier batches
    List<List<Event>> out = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      int from = all.size() * b / batches;
      int to = all.size() * (b + 1) / batches;
      out.add(List.copyOf(all.subList(from, to)));
    }
    return out;
  }

  private static Map<Object, Long> recount(List<List<Event>> batches, boolean clicks) {
    Map<String, String> bannerOf = new TreeMap<>();
    for (List<Event> batch : batches) {
      for (Event e : batch) {
        if (!e.click()) {
          bannerOf.put(e.showId(), e.bannerId());
        }
      }
    }
    Map<Object, Long> counts = new TreeMap<>();
    for (List<Event> batch : batches) {
      for (Event e : batch) {
        if (e.click() == clicks) {
          counts.merge(bannerOf.get(e.showId()), 1L, Long::sum);
        }
      }
    }
    return counts;
  }

  private static Pipeline build(String name, TableCheckpointStore checkpoints, FlowStates states,
      ListSpout<Event> spout, Set<String> failOnce, Set<String> failAlways, int maxAttempts) {
    PipelineBuilder builder = Pipeline.newBuilder(name).partitions(4).threads(4).maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(maxAttempts)).checkpointStore(checkpoints);
    Stream<Event> events = builder.source(spout);
    Stream<String> perBanner = Flow.process(events, "join-by-show", Event::showId, () -> new JoinByShow(failOnce, failAlways),
        states);
    Flow.process(perBanner, "count-by-banner", e -> e.substring(e.indexOf(':') + 1), CountByBanner::new, states);
    return builder.build();
  }

  @Test
  void shouldCountShowsAndClicksPerBannerExactlyDespiteReplays() {
    List<List<Event>> batches = generate(2026, 12, 60);
    // every 5th epoch commit fails once, before anything is written: the batch is replayed under its txid
    AtomicInteger commits = new AtomicInteger();
    Set<Integer> failedCommits = ConcurrentHashMap.newKeySet();
    TableStore store = TableStores.inMemoryBuilder().commitHook(path -> {
      if (path.endsWith("__epochal_checkpoints")) {
        int n = commits.incrementAndGet();
        if (n % 5 == 0) {
          failedCommits.add(n);
          throw new IllegalStateException("injected failure of epoch commit #" + n);
        }
      }
    }).build();
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    FlowStates states = FlowStates.create();
    ListSpout<Event> spout = new ListSpout<>(batches);

    // processors fail once for some shows (the batch is replayed); then one show fails on every attempt, the
    // pipeline stops, and a rebuilt pipeline resumes from the last committed txid
    Set<String> failOnce = ConcurrentHashMap.newKeySet();
    failOnce.addAll(List.of("s3", "s50", "s77", "s130"));
    Set<String> failAlways = ConcurrentHashMap.newKeySet();
    long committed;
    try (Pipeline first = build("ads", checkpoints, states, spout, failOnce, failAlways, 10)) {
      RunSummary run = first.run(5);
      assertEquals(5, run.batches());
      assertTrue(run.failedAttempts() > 0, "replays happened: " + run);
      String poisoned = batches.get(5).stream().filter(e -> !e.click()).findFirst().orElseThrow().showId();
      failAlways.add(poisoned);
      assertThrows(BatchFailedException.class, first::runUntilIdle);
      committed = first.lastCommittedTxid();
      assertEquals(5, committed);
    }
    failAlways.clear();
    try (Pipeline second = build("ads", checkpoints, states, spout, failOnce, failAlways, 10)) {
      assertEquals(committed, second.lastCommittedTxid(), "the rebuilt pipeline resumes after the last commit");
      second.runUntilIdle();
      assertEquals(batches.size(), second.lastCommittedTxid());
    }
    assertTrue(failedCommits.size() >= 2, "epoch commits failed and were replayed: " + failedCommits);

    Map<Object, Long> shows = FlowTesting.read(store, "ads/count-by-banner/shows", Codecs.longs());
    Map<Object, Long> clicks = FlowTesting.read(store, "ads/count-by-banner/clicks", Codecs.longs());
    assertEquals(recount(batches, false), shows);
    assertEquals(recount(batches, true), clicks);
    long totalClicks = batches.stream().flatMap(List::stream).filter(Event::click).count();
    assertEquals(totalClicks, clicks.values().stream().mapToLong(Long::longValue).sum(), "every click joined");
    // every show is remembered with no pending click left
    Map<Object, ShowState> joined = FlowTesting.read(store, "ads/join-by-show/show", SHOW_CODEC);
    assertEquals(batches.size() * 60 / 3, joined.size());
    assertTrue(joined.values().stream().allMatch(s -> s.pendingClicks() == 0 && !s.bannerId().isEmpty()));
  }
}
