package io.epochal.testkit.process;

import io.epochal.api.Evolving;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
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
 * A child JVM running a main class of the test classpath, for tests with real processes: its stdout lines are
 * queued for the test to wait on, its stderr is kept for failure messages, and {@link #kill()} sends SIGKILL
 * ({@link Process#destroyForcibly()} on Linux). For crash tests of stores and pipelines with real processes (see
 * {@link CrashWordCount}).
 *
 * <p>Not thread-safe: one test thread drives a child.
 *
 * @since 0.2.0
 */
@Evolving
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringBuffer stderr = new StringBuffer();
  private final Writer stdin;
  /** Reads the child's stdout into {@link #lines}; ends at EOF, after the child exited. */
  private final Thread stdoutPump;
  private final long startedNanos = System.nanoTime();

  private ChildJvm(Process process) {
    this.process = process;
    this.stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.stdoutPump = pump(process.getInputStream(), line -> lines.add(line), "stdout");
    pump(process.getErrorStream(), line -> {
      if (stderr.length() < 64 * 1024) {
        stderr.append(line).append('\n');
      }
    }, "stderr");
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM over this JVM's classpath.
   *
   * @param mainClass the class whose {@code main} the child runs
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws IOException if the {@code java} process cannot be started
   */
  public static ChildJvm start(Class<?> mainClass, List<String> args) throws IOException {
    return start(mainClass, List.of(), args);
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM over this JVM's classpath, with extra JVM options (e.g.
   * {@code -Djava.library.path=...} for a native library extracted once).
   *
   * @param mainClass the class whose {@code main} the child runs
   * @param jvmOptions options placed after the kit's own ({@code -Xmx256m}, serial GC, C1 only) and before the class
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws IOException if the {@code java} process cannot be started
   */
  public static ChildJvm start(Class<?> mainClass, List<String> jvmOptions, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.addAll(jvmOptions);
    cmd.add(mainClass.getName());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    return new ChildJvm(pb.start());
  }

  private static Thread pump(InputStream in, java.util.function.Consumer<String> sink, String what) {
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
    return t;
  }

  /**
   * Waits for a stdout line matching {@code match}, skipping (and consuming) others.
   *
   * @param match which line to wait for
   * @param timeout how long to wait at most
   * @return the line, or null if the child exited or the timeout passed first
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
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
      } else if (!process.isAlive() && !stdoutPump.isAlive() && lines.isEmpty()) {
        return null; // the pump reached EOF: every line the child wrote is in the queue (no sleep needed)
      }
    }
  }

  /**
   * Looks for a line among those already received, without waiting.
   *
   * @param match which line to look for
   * @return the first line already received that matches, consuming the lines received so far; null if none
   */
  public String pollLine(Predicate<String> match) {
    String found = null;
    for (String line; (line = lines.poll()) != null;) {
      if (found == null && match.test(line)) {
        found = line;
      }
    }
    return found;
  }

  /**
   * Writes a line to the child's stdin and flushes it.
   *
   * @param line the line, without its line break
   * @throws UncheckedIOException if the child's stdin is closed (typically: the child exited)
   */
  public void send(String line) {
    try {
      stdin.write(line + "\n");
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * SIGTERM (the JVM runs its shutdown hooks), without waiting; see {@link #waitFor}. Sent through the process
   * handle: {@link Process#destroy()} would also close the pipes, losing what the child writes while it stops.
   */
  public void terminate() {
    process.toHandle().destroy();
  }

  /**
   * SIGKILL, and wait until the process is gone.
   *
   * @throws InterruptedException if the waiting thread is interrupted (the signal is sent)
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /**
   * Tells whether the child still runs.
   *
   * @return whether the child process has not exited yet
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the exit; kills the child if it has not exited in time.
   *
   * @param timeout how long to wait at most
   * @return the exit code, or -1 on timeout (the child is then killed)
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  /**
   * Tells how long ago the child was started.
   *
   * @return the milliseconds since {@link #start} made this child
   */
  public long ageMillis() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  /**
   * Returns what the child wrote to stderr so far, for failure messages.
   *
   * @return the stderr lines received, each ending with a line break, up to about 64 KiB
   */
  public String stderr() {
    return stderr.toString();
  }

  /** Kills the child if it is still running (SIGKILL) and waits for it to be gone. */
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
