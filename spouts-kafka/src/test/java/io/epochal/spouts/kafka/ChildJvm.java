package io.epochal.spouts.kafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a main class of the test classpath, for SIGKILL tests: its stdout lines are queued for the
 * test to wait on, its stderr kept for failure messages; {@link #kill()} sends SIGKILL
 * ({@link Process#destroyForcibly()} on Linux).
 */
final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringBuffer stderr = new StringBuffer();

  private ChildJvm(Process process) {
    this.process = process;
    pump(process.getInputStream(), lines::add, "stdout");
    pump(process.getErrorStream(), line -> {
      if (stderr.length() < 64 * 1024) {
        stderr.append(line).append('\n');
      }
    }, "stderr");
  }

  static ChildJvm start(Class<?> mainClass, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka=error");
    cmd.add(mainClass.getName());
    cmd.addAll(args);
    return new ChildJvm(new ProcessBuilder(cmd).start());
  }

  private static void pump(InputStream in, java.util.function.Consumer<String> sink, String what) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null;) {
          sink.accept(line);
        }
      } catch (IOException e) {
        // the child died: nothing more to read
      }
    }, "child-" + what);
    t.setDaemon(true);
    t.start();
  }

  /** @return the first stdout line matching {@code match}, or null if the child exited or the timeout passed */
  String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      String line = lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
      if (line != null) {
        if (match.test(line)) {
          return line;
        }
      } else if (!process.isAlive() && lines.isEmpty()) {
        Thread.sleep(20);
        if (lines.isEmpty()) {
          return null;
        }
      }
    }
  }

  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  int waitFor(Duration timeout) throws InterruptedException {
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  String stderr() {
    return stderr.toString();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
