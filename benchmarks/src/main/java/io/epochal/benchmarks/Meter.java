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

  public boolean started() {
    return startNanos.get() != 0;
  }

  /** Ends the timed section. */
  public void stop() {
    long now = System.nanoTime();
    if (!started()) {
      throw new IllegalStateException("the timed section never started");
    }
    wallNanos = now - startNanos.get();
    cpuNanos = OS.getProcessCpuTime() - startCpu;
    sampling = false;
  }

  public long wallNanos() {
    return wallNanos;
  }

  public long cpuNanos() {
    return cpuNanos;
  }

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

  /** @return {@code VmHWM} from a {@code /proc/<pid>/status} file in KiB, or -1 if unknown */
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
