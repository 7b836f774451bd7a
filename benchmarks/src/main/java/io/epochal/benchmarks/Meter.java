package io.epochal.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the timed section of a run inside its child JVM: wall time, process CPU time, peak heap use (sampled every
 * 10 ms) and peak RSS ({@code VmHWM} of {@code /proc/self/status}). {@link #start()} may be called from any thread,
 * once; the first call wins.
 */
public final class Meter {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final AtomicLong startNanos = new AtomicLong();
  private volatile long startCpu;
  private long wallNanos;
  private long cpuNanos;
  private final AtomicLong heapPeak = new AtomicLong();
  private volatile boolean sampling = true;

  /** Creates a meter and starts its daemon heap sampler, which runs until {@link #stop()}. */
  public Meter() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    Thread sampler = new Thread(() -> {
      while (sampling) {
        heapPeak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Starts the timed section (first call only). */
  public void start() {
    long now = System.nanoTime();
    if (startNanos.compareAndSet(0, now)) {
      startCpu = OS.getProcessCpuTime();
    }
  }

  /** @return whether {@link #start()} has been called */
  public boolean started() {
    return startNanos.get() != 0;
  }

  /**
   * Ends the timed section: records wall and CPU time and stops the heap sampler.
   *
   * @throws IllegalStateException if {@link #start()} was never called
   */
  public void stop() {
    long now = System.nanoTime();
    if (!started()) {
      throw new IllegalStateException("the timed section never started");
    }
    wallNanos = now - startNanos.get();
    cpuNanos = OS.getProcessCpuTime() - startCpu;
    sampling = false;
  }

  /** @return the wall time of the timed section in nanoseconds, 0 before {@link #stop()} */
  public long wallNanos() {
    return wallNanos;
  }

  /** @return the process CPU time (all threads) of the timed section in nanoseconds, 0 before {@link #stop()} */
  public long cpuNanos() {
    return cpuNanos;
  }

  /** @return the highest heap use sampled since construction, in bytes */
  public long heapPeakBytes() {
    return heapPeak.get();
  }

  /** @return process CPU time so far */
  public static long processCpuNanos() {
    return OS.getProcessCpuTime();
  }

  /** @return {@code VmHWM} of this process in KiB, or -1 if unknown */
  public static long vmHwmKb() {
    return vmHwmKb(Path.of("/proc/self/status"));
  }

  /**
   * Reads the peak resident set size of a process.
   *
   * @param status a {@code /proc/<pid>/status} file
   * @return {@code VmHWM} from the file in KiB, or -1 if unknown (file unreadable or no such line)
   */
  public static long vmHwmKb(Path status) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
