package io.epochal.benchmarks;

import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Runs variants in this (child) JVM, one after the other:
 * {@code Child <variant>[,<variant>…] <corpus> <work dir> <result dir> [key=value…]}. Writes each variant's counts to
 * {@code <work dir>/<variant>/counts.tsv} and its measurements to {@code <result dir>/<variant>.properties}, then
 * halts (peers leave non-daemon threads behind). One variant per JVM for measurements; several only to save JVM and
 * cluster start-ups in the smoke test.
 */
public final class Child {
  private Child() {
  }

  /**
   * Runs the variants, then halts the JVM with status 1 if any of them failed, else 0.
   *
   * @param args {@code <variant>[,<variant>…] <corpus> <work dir> <result dir> [key=value…]}
   */
  public static void main(String[] args) {
    Path resultDir = Path.of(args[3]);
    int status = 0;
    for (String id : args[0].split(",")) {
      status = Math.max(status, runOne(id, Path.of(args[1]), Path.of(args[2]).resolve(id), resultDir, args));
    }
    stopFlightRecordings();
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(status);
  }

  /** Writes the recordings of {@code -XX:StartFlightRecording=filename=…}: halting skips JFR's own dump at exit. */
  private static void stopFlightRecordings() {
    try {
      if (jdk.jfr.FlightRecorder.isInitialized()) {
        for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
          if (r.getState() == jdk.jfr.RecordingState.RUNNING) {
            r.stop(); // writes it to its destination
          }
        }
      }
    } catch (RuntimeException | Error e) {
      System.err.println("could not write the flight recording: " + e);
    }
  }

  private static int runOne(String id, Path corpus, Path work, Path resultDir, String[] args) {
    Properties result = new Properties();
    int status = 0;
    long cpuBefore = Meter.processCpuNanos();
    try {
      Variant variant = Variant.of(id);
      Files.createDirectories(work);
      Meter meter = new Meter();
      Properties extra = new Properties();
      RunContext ctx = new RunContext(corpus, work, Options.parse(args, 4), meter, extra);
      Method m = Class.forName(variant.className).getMethod(variant.method, RunContext.class);
      @SuppressWarnings("unchecked")
      Map<String, Long> counts = (Map<String, Long>) m.invoke(null, ctx);
      Path countsFile = work.resolve("counts.tsv");
      Counts.write(counts, countsFile);
      result.putAll(extra);
      result.setProperty("variant", variant.id());
      result.setProperty("words", Long.toString(Counts.total(counts)));
      result.setProperty("wallNanos", Long.toString(meter.wallNanos()));
      result.setProperty("cpuNanos", Long.toString(meter.cpuNanos()));
      result.setProperty("heapPeakBytes", Long.toString(meter.heapPeakBytes()));
      result.setProperty("counts", countsFile.toString());
    } catch (InvocationTargetException e) {
      e.getCause().printStackTrace();
      result.setProperty("error", String.valueOf(e.getCause()));
      status = 1;
    } catch (Throwable e) {
      e.printStackTrace();
      result.setProperty("error", String.valueOf(e));
      status = 1;
    }
    result.setProperty("totalCpuNanos", Long.toString(Meter.processCpuNanos() - cpuBefore));
    result.setProperty("vmHwmKb", Long.toString(Meter.vmHwmKb()));
    try (OutputStream out = Files.newOutputStream(resultDir.resolve(id + ".properties"))) {
      result.store(out, null);
    } catch (Exception e) {
      e.printStackTrace();
      status = 2;
    }
    return status;
  }
}
