package io.epochal.trident;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.storm.redis.common.config.JedisPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

/**
 * A private {@code redis-server} process for one test class: started on a free port of 127.0.0.1 in a fresh
 * directory, with nothing persisted ({@code --save '' --appendonly no}), and shut down by {@link #close()} (and by a
 * shutdown hook if the JVM exits first). The binary is {@code redis-server} from {@code PATH}, or the path in system
 * property {@code epochal.redis.server}. A machine without it fails the test with what to install (the Debian package
 * {@code redis-server}, which {@code .ci/run} installs when it is missing): the Redis tests never skip.
 *
 * <p>Not thread-safe for start and close; the clients it hands out are each for one thread.
 */
final class RedisServer implements AutoCloseable {
  /** Logical databases of the server: tests give each run its own, flushed, database. */
  static final int DATABASES = 64;
  private static final long START_TIMEOUT_MS = 20_000;

  private final Process process;
  private final Path dir;
  private final int port;
  private final Thread hook;

  private RedisServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
    this.hook = new Thread(process::destroyForcibly, "redis-server-" + port + "-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Starts a server.
   *
   * @throws AssertionError if no {@code redis-server} binary is installed, or it does not start (with its log)
   */
  static RedisServer start() throws IOException, InterruptedException {
    String binary = binary();
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      Path dir = Files.createTempDirectory("epochal-redis-");
      int port = freePort();
      Path log = dir.resolve("redis.log");
      Process process = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--databases", Integer.toString(DATABASES),
          "--daemonize", "no")
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      Optional<String> failure = awaitReady(process, port);
      if (failure.isEmpty()) {
        return new RedisServer(process, dir, port);
      }
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
      deleteTree(dir);
      if (!output.contains("Address already in use")) {
        throw new AssertionError(binary + " did not start on port " + port + ": " + failure.get()
            + "\n--- its output ---\n" + output);
      }
      last = new IOException("port " + port + " was taken before redis-server bound it");
    }
    throw new AssertionError("redis-server found no free port", last);
  }

  /** The {@code redis-server} binary to run, or an {@link AssertionError} saying what to install. */
  private static String binary() {
    String configured = System.getProperty("epochal.redis.server");
    if (configured != null && !configured.isBlank()) {
      if (!Files.isExecutable(Path.of(configured))) {
        throw new AssertionError("epochal.redis.server=" + configured + " is not an executable file");
      }
      return configured;
    }
    String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "redis-server"))) {
        return Path.of(entry, "redis-server").toString();
      }
    }
    throw new AssertionError("The Redis tests of trident-compat need a real redis-server, and none is on PATH ("
        + path + "). Install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`; .ci/run does this when it "
        + "is missing) or point -Depochal.redis.server=/path/to/redis-server at one. These tests never skip.");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Empty once the server answers PING; otherwise why it did not. */
  private static Optional<String> awaitReady(Process process, int port) throws InterruptedException {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
    String lastError = "no answer";
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        return Optional.of("it exited with status " + process.exitValue());
      }
      try (Jedis jedis = new Jedis("127.0.0.1", port, 1000)) {
        if ("PONG".equals(jedis.ping())) {
          return Optional.empty();
        }
      } catch (RuntimeException e) {
        lastError = e.toString();
      }
      Thread.sleep(50);
    }
    return Optional.of("no PONG within " + START_TIMEOUT_MS + " ms (" + lastError + ")");
  }

  int port() {
    return port;
  }

  /** The storm-redis pool configuration of logical database {@code database} of this server. */
  JedisPoolConfig poolConfig(int database) {
    return new JedisPoolConfig("127.0.0.1", port, 5000, null, checkDatabase(database));
  }

  /**
   * A Jedis pool on logical database {@code database}, for tests that build {@code RedisMapState} by hand (close it).
   * Without an idle evictor: closing a pool whose evictor runs can fail in commons-pool2 2.12's shared eviction timer
   * ({@code ConcurrentModificationException} in {@code EvictionTimer.remove}) while other pools' evictors run.
   */
  redis.clients.jedis.JedisPool pool(int database) {
    redis.clients.jedis.JedisPoolConfig config = new redis.clients.jedis.JedisPoolConfig();
    config.setTimeBetweenEvictionRuns(java.time.Duration.ofMillis(-1));
    config.setJmxEnabled(false);
    return new redis.clients.jedis.JedisPool(config, "127.0.0.1", port, 5000, null, checkDatabase(database));
  }

  /** A new client on logical database {@code database} (close it). */
  Jedis client(int database) {
    Jedis jedis = new Jedis("127.0.0.1", port, 5000);
    jedis.select(checkDatabase(database));
    return jedis;
  }

  /** Empties logical database {@code database}. */
  void flush(int database) {
    try (Jedis jedis = client(database)) {
      jedis.flushDB();
    }
  }

  /** Every key of logical database {@code database} with its string value, sorted by key. */
  Map<String, String> dump(int database) {
    Map<String, String> out = new TreeMap<>();
    try (Jedis jedis = client(database)) {
      List<String> keys = new ArrayList<>(jedis.keys("*"));
      if (!keys.isEmpty()) {
        List<String> values = jedis.mget(keys.toArray(String[]::new));
        for (int i = 0; i < keys.size(); i++) {
          out.put(keys.get(i), values.get(i));
        }
      }
    }
    return out;
  }

  /**
   * Closes every other client connection on the server side ({@code CLIENT KILL TYPE normal SKIPME yes}): the next
   * command a pooled connection sends fails with a lost connection, as when the network or a proxy drops it.
   *
   * @return how many connections were closed
   */
  long killClientConnections() {
    try (Jedis jedis = new Jedis("127.0.0.1", port, 5000)) {
      return jedis.clientKill(ClientKillParams.clientKillParams().type(redis.clients.jedis.args.ClientType.NORMAL)
          .skipMe(ClientKillParams.SkipMe.YES));
    }
  }

  /**
   * storm-redis' {@code RedisMapState.Factory} opens a {@code JedisPool} on its shared static pool configuration in
   * every {@code makeState} and never closes it: on Storm that is once per task, on Epochal once per pipeline build
   * and partition (and again when a failed Trident state is replaced). Its idle connections stay open until the
   * pool's evictor closes them, 60 s by default. Tests that build thousands of pipelines shorten that to half a second
   * (and keep the pools out of JMX, so that they can be collected) with this, and call {@link Defaults#close()} after.
   */
  static Defaults quickIdleEviction() {
    redis.clients.jedis.JedisPoolConfig config = PoolDefaults.config();
    Defaults saved = new Defaults(config, config.getMinEvictableIdleDuration(),
        config.getDurationBetweenEvictionRuns(), config.getJmxEnabled());
    config.setMinEvictableIdleDuration(java.time.Duration.ofMillis(500));
    config.setTimeBetweenEvictionRuns(java.time.Duration.ofMillis(250));
    config.setJmxEnabled(false);
    return saved;
  }

  /** The pool defaults {@link #quickIdleEviction()} replaced; {@link #close()} puts them back. */
  record Defaults(redis.clients.jedis.JedisPoolConfig config, java.time.Duration minEvictableIdle,
      java.time.Duration betweenEvictionRuns, boolean jmx) implements AutoCloseable {
    @Override
    public void close() {
      config.setMinEvictableIdleDuration(minEvictableIdle);
      config.setTimeBetweenEvictionRuns(betweenEvictionRuns);
      config.setJmxEnabled(jmx);
    }
  }

  /** Reaches {@code RedisMapState.Factory.DEFAULT_POOL_CONFIG} (a protected nested class). */
  private static final class PoolDefaults extends org.apache.storm.redis.trident.state.RedisMapState<Object> {
    private PoolDefaults() {
      super(null, null, null, null);
    }

    static redis.clients.jedis.JedisPoolConfig config() {
      return Factory.DEFAULT_POOL_CONFIG;
    }
  }

  private static int checkDatabase(int database) {
    if (database < 0 || database >= DATABASES) {
      throw new IllegalArgumentException("database " + database + " not in [0, " + DATABASES + ")");
    }
    return database;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      process.destroy(); // SIGTERM: redis-server exits at once (nothing to save)
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }

  @Override
  public String toString() {
    return "redis-server on 127.0.0.1:" + port + " in " + dir;
  }
}
