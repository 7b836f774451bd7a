package io.epochal.stormcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.utils.NimbusClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real multi-process Storm 2.8.3 cluster for tests: ZooKeeper, Nimbus and two Supervisors, each in its own JVM, and
 * the worker JVMs the supervisors launch. The Storm home is the one the build assembled ({@code lib/},
 * {@code lib-worker/}, {@code extlib/}, system property {@code epochal.storm.home}) linked into a fresh directory
 * with its own {@code conf/} and {@code log4j2/}. Every process started, and every worker PID a supervisor recorded,
 * is killed by {@link #close()} (supervisors, workers, Nimbus, ZooKeeper); a shutdown hook does the same if the test
 * JVM exits first. Not thread-safe: one test thread drives it.
 */
final class StormCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StormCluster.class);

  private final Path home;
  private final Path built;
  private final Set<Integer> ports = new java.util.HashSet<>();
  final int zkPort;
  final int nimbusPort;
  private final Map<String, Process> daemons = new HashMap<>();
  private final Map<String, Path> localDirs = new HashMap<>();
  private final Map<String, String> confFiles = new HashMap<>();
  /** Every worker / LogWriter PID seen, for the teardown. */
  private final Set<Long> seen = new LinkedHashSet<>();
  private final Thread hook = new Thread(this::killAll, "storm-cluster-teardown");

  StormCluster(Path home) throws IOException {
    this.home = home;
    this.built = Path.of(System.getProperty("epochal.storm.home", "target/storm-home")).toAbsolutePath();
    for (String lib : List.of("lib", "lib-worker", "extlib")) {
      if (!Files.isDirectory(built.resolve(lib))) {
        throw new IllegalStateException("no " + built.resolve(lib) + ": run through Maven (mvn verify: pre-integration-test assembles it)");
      }
      Files.createSymbolicLink(home.resolve(lib), built.resolve(lib));
    }
    Files.createDirectories(home.resolve("conf"));
    Files.createDirectories(home.resolve("log4j2"));
    Files.createDirectories(home.resolve("logs"));
    Files.writeString(home.resolve("log4j2/cluster.xml"), log4j("${sys:storm.log.dir}/${sys:logfile.name}", false));
    Files.writeString(home.resolve("log4j2/worker.xml"),
        log4j("${sys:workers.artifacts}/${sys:storm.id}/${sys:worker.port}/${sys:logfile.name}", true));
    this.zkPort = freePort();
    this.nimbusPort = freePort();
    Files.writeString(home.resolve("conf/storm.yaml"), commonYaml());
    Runtime.getRuntime().addShutdownHook(hook);
  }

  private static String log4j(String file, boolean worker) {
    return "<Configuration status=\"WARN\"><Appenders><File name=\"F\" fileName=\"" + file + "\">"
        + "<PatternLayout pattern=\"%d{HH:mm:ss.SSS} %t %c{1.} %p %m%n\"/></File></Appenders><Loggers>"
        + (worker ? "<Logger name=\"STDERR\" level=\"INFO\"/><Logger name=\"STDOUT\" level=\"INFO\"/>" : "")
        + "<Logger name=\"io.epochal\" level=\"INFO\"/>"
        // The batch history a stall is read from: coordinator attempts, spout metadata writes, emitted ranges,
        // per-partition begin/commit.
        + (worker ? "<Logger name=\"io.epochal.trident\" level=\"DEBUG\"/>"
            + "<Logger name=\"org.apache.storm.trident.topology.MasterBatchCoordinator\" level=\"DEBUG\"/>"
            + "<Logger name=\"org.apache.storm.trident.topology.state.RotatingTransactionalState\" level=\"DEBUG\"/>"
            : "")
        + "<Root level=\"WARN\"><AppenderRef ref=\"F\"/></Root></Loggers></Configuration>";
  }

  private String commonYaml() {
    return String.join("\n",
        "storm.zookeeper.servers: [\"127.0.0.1\"]",
        "storm.zookeeper.port: " + zkPort,
        "nimbus.seeds: [\"127.0.0.1\"]",
        "nimbus.thrift.port: " + nimbusPort,
        "storm.local.hostname: \"127.0.0.1\"",
        "java.library.path: \"\"",
        "storm.scheduler: \"org.apache.storm.scheduler.DefaultScheduler\"",
        "worker.heap.memory.mb: 200",
        "worker.childopts: \"-Xmx%HEAP-MEM%m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k\"",
        "topology.worker.logwriter.childopts: \"-Xmx48m -XX:+UseSerialGC\"",
        "nimbus.monitor.freq.secs: 2",
        "nimbus.supervisor.timeout.secs: 8",
        "nimbus.task.timeout.secs: 8",
        "nimbus.task.launch.secs: 60",
        "supervisor.monitor.frequency.secs: 1",
        "supervisor.worker.timeout.secs: 8",
        "supervisor.worker.start.timeout.secs: 60",
        "worker.heartbeat.frequency.secs: 1",
        "task.heartbeat.frequency.secs: 1",
        "") + "\n";
  }

  /**
   * A port for a daemon to bind later, below the kernel's ephemeral range (32768-60999 here): a port the kernel hands
   * out for {@code bind(0)} may be taken by any outgoing connection (or another cluster's {@code bind(0)}) before the
   * daemon binds it, which once left Nimbus unable to start ("Address already in use"). Each port is handed out once
   * per cluster and was bindable when chosen.
   */
  private int freePort() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = random.nextInt(20_000, 32_000);
      if (!ports.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port)) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException taken) {
        // in use: try another
      }
    }
    throw new UncheckedIOException(new IOException("no free port in 20000-32000 after 1000 attempts"));
  }

  Path home() {
    return home;
  }

  /** The client configuration (the submitter's and NimbusClient's). */
  Map<String, Object> clientConf() {
    Map<String, Object> c = new HashMap<>();
    c.put("storm.zookeeper.servers", List.of("127.0.0.1"));
    c.put("storm.zookeeper.port", zkPort);
    c.put("nimbus.seeds", List.of("127.0.0.1"));
    c.put("nimbus.thrift.port", nimbusPort);
    return c;
  }

  /** Starts ZooKeeper, Nimbus and two supervisors (two slots each), and waits until Nimbus lists both. */
  void start() throws Exception {
    Path zkData = Files.createDirectories(home.resolve("zk-data"));
    List<String> zk = javaCmd("zookeeper", List.of("-Dzookeeper.admin.enableServer=false"));
    zk.add("org.apache.zookeeper.server.ZooKeeperServerMain");
    zk.add(String.valueOf(zkPort));
    zk.add(zkData.toString());
    launch("zookeeper", zk);
    waitZooKeeper();
    startDaemon("nimbus", "org.apache.storm.daemon.nimbus.Nimbus", "");
    startSupervisor("supervisor1");
    startSupervisor("supervisor2");
    await("Nimbus to list both supervisors", Duration.ofSeconds(90), () -> supervisors() == 2);
  }

  void startSupervisor(String name) throws Exception {
    startDaemon(name, "org.apache.storm.daemon.supervisor.Supervisor",
        "supervisor.thrift.port: " + freePort() + "\nsupervisor.slots.ports: [" + freePort() + ", " + freePort()
            + "]\n");
  }

  private void startDaemon(String name, String main, String extraYaml) throws IOException {
    Path local = Files.createDirectories(home.resolve("local-" + name));
    localDirs.put(name, local);
    Path conf = home.resolve("conf/" + name + ".yaml");
    Files.writeString(conf, commonYaml() + "storm.local.dir: \"" + local + "\"\n" + extraYaml);
    confFiles.put(name, conf.toString());
    List<String> cmd = javaCmd(name, List.of("-Dstorm.conf.file=" + conf, "-Ddaemon.name=" + name,
        "-Dlog4j.configurationFile=" + home.resolve("log4j2/cluster.xml"), "-Djava.deserialization.disabled=true"));
    cmd.add(main);
    launch(name, cmd);
  }

  private List<String> javaCmd(String name, List<String> opts) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(home.resolve("lib") + "/*:" + home.resolve("conf"));
    cmd.add("-Xmx192m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Dstorm.home=" + home);
    cmd.add("-Dstorm.log.dir=" + home.resolve("logs"));
    cmd.add("-Dlogfile.name=" + name + ".log");
    cmd.add("-Djava.library.path=");
    cmd.addAll(opts);
    return cmd;
  }

  private void launch(String name, List<String> cmd) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile())
        .redirectErrorStream(true).redirectOutput(home.resolve("logs/" + name + ".out").toFile());
    pb.environment().remove("STORM_CONF_DIR");
    pb.environment().remove("STORM_EXT_CLASSPATH");
    Process p = pb.start();
    daemons.put(name, p);
    LOG.info("started {} (pid {})", name, p.pid());
  }

  private void waitZooKeeper() throws Exception {
    // Health is a real client session, not an open port (ZooKeeper 3.9 accepts connections it cannot serve).
    await("ZooKeeper to serve a client", Duration.ofSeconds(60), () -> {
      try (org.apache.zookeeper.ZooKeeper z = new org.apache.zookeeper.ZooKeeper("127.0.0.1:" + zkPort, 5000,
          e -> { })) {
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (z.getState() != org.apache.zookeeper.ZooKeeper.States.CONNECTED && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        return z.exists("/", false) != null;
      } catch (Exception e) {
        return false;
      }
    });
  }

  /** Supervisors Nimbus lists, or -1 if Nimbus does not answer. */
  int supervisors() {
    try (NimbusClient c = NimbusClient.getConfiguredClient(clientConf())) {
      ClusterSummary s = c.getClient().getClusterInfo();
      return s.get_supervisors_size();
    } catch (Exception e) {
      return -1;
    }
  }

  NimbusClient nimbus() {
    return NimbusClient.getConfiguredClient(clientConf());
  }

  /** The worker PIDs recorded in {@code name}'s local dir ({@code workers/<id>/pids/<pid>}), live ones only. */
  List<Long> workerPids(String supervisor) {
    Path workers = localDirs.get(supervisor).resolve("workers");
    List<Long> out = new ArrayList<>();
    if (!Files.isDirectory(workers)) {
      return out;
    }
    try (Stream<Path> ids = Files.list(workers)) {
      for (Path id : (Iterable<Path>) ids::iterator) {
        Path pids = id.resolve("pids");
        if (!Files.isDirectory(pids)) {
          continue;
        }
        try (Stream<Path> ps = Files.list(pids)) {
          for (Path p : (Iterable<Path>) ps::iterator) {
            long pid = Long.parseLong(p.getFileName().toString());
            seen.add(pid);
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
              out.add(pid);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  List<Long> allWorkerPids() {
    List<Long> out = new ArrayList<>();
    for (String s : localDirs.keySet()) {
      if (s.startsWith("supervisor")) {
        out.addAll(workerPids(s));
      }
    }
    return out;
  }

  /** Records the descendants (LogWriters, workers) of every daemon for the teardown. */
  private void recordDescendants() {
    for (Process p : daemons.values()) {
      p.descendants().forEach(d -> seen.add(d.pid()));
    }
  }

  /** The PID of daemon {@code name}. */
  long pid(String name) {
    return daemons.get(name).pid();
  }

  /** The slot port of worker {@code pid} (its command line: ... Worker topology supervisor supPort port id). */
  static int workerPort(long pid) throws IOException {
    String[] args = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")),
        java.nio.charset.StandardCharsets.UTF_8).split("\0");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("org.apache.storm.daemon.worker.Worker")) {
        return Integer.parseInt(args[i + 4]);
      }
    }
    throw new IllegalStateException("process " + pid + " is not a Storm worker");
  }

  /** The supervisor whose local dir recorded worker {@code pid}. */
  String supervisorOf(long pid) {
    for (String s : List.of("supervisor1", "supervisor2")) {
      if (workerPids(s).contains(pid)) {
        return s;
      }
    }
    throw new IllegalStateException("no supervisor recorded worker " + pid);
  }

  /**
   * For failure messages: the ZooKeeper subtree {@code root} (Trident's coordinator and spout metadata under
   * {@code /transactional}), one line per node with its data as text.
   */
  String zooKeeperTree(String root) {
    StringBuilder b = new StringBuilder();
    try {
      org.apache.zookeeper.ZooKeeper zk = new org.apache.zookeeper.ZooKeeper("127.0.0.1:" + zkPort, 10_000, e -> {
      });
      try {
        dumpNode(zk, root, b);
      } finally {
        zk.close();
      }
    } catch (Exception e) {
      b.append("  (cannot read ZooKeeper ").append(root).append(": ").append(e).append(")\n");
    }
    return b.toString();
  }

  private static void dumpNode(org.apache.zookeeper.ZooKeeper zk, String path, StringBuilder b) throws Exception {
    byte[] data = zk.getData(path, false, null);
    b.append("  zk ").append(path).append(" = ")
        .append(data == null ? "" : new String(data, java.nio.charset.StandardCharsets.UTF_8)).append('\n');
    List<String> children = new ArrayList<>(zk.getChildren(path, false));
    java.util.Collections.sort(children);
    for (String child : children) {
      dumpNode(zk, path.equals("/") ? "/" + child : path + "/" + child, b);
    }
  }

  /** Copies every log of the cluster to {@code target} (kept after the test's temporary directory is gone). */
  void saveLogs(Path target) {
    try (Stream<Path> files = Files.walk(home.resolve("logs"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          Path to = target.resolve(home.resolve("logs").relativize(f).toString());
          Files.createDirectories(to.getParent());
          Files.copy(f, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
      System.out.println("[storm-cluster] logs saved in " + target.toAbsolutePath());
    } catch (IOException e) {
      System.out.println("[storm-cluster] cannot save the logs in " + target + ": " + e);
    }
  }

  /** The text of every worker log under {@code logs/workers-artifacts} for slot {@code port}. */
  String workerLogs(int port) throws IOException {
    StringBuilder b = new StringBuilder();
    Path root = home.resolve("logs/workers-artifacts");
    if (!Files.isDirectory(root)) {
      return "";
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f) && f.getParent().getFileName().toString().equals(String.valueOf(port))) {
          b.append(Files.readString(f));
        }
      }
    }
    return b.toString();
  }

  static void kill(long pid, boolean force) {
    ProcessHandle.of(pid).ifPresent(h -> {
      if (force) {
        h.destroyForcibly();
      } else {
        h.destroy();
      }
    });
  }

  /** SIGKILLs supervisor {@code name} and the worker JVMs it launched (a lost machine). */
  void killSupervisor(String name) throws InterruptedException {
    List<Long> workers = workerPids(name);
    recordDescendants();
    List<ProcessHandle> children = daemons.get(name).descendants().toList();
    daemons.get(name).destroyForcibly().waitFor();
    for (long w : workers) {
      kill(w, true);
    }
    children.forEach(ProcessHandle::destroyForcibly);
    LOG.info("killed {} and its workers {}", name, workers);
  }

  /** Sends a signal (STOP, CONT, KILL) to a recorded worker. */
  static void signal(long pid, String sig) throws IOException, InterruptedException {
    int rc = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("kill -" + sig + " " + pid + " exited with " + rc);
    }
  }

  static void await(String what, Duration timeout, Check done) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.ok()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      Thread.sleep(250);
    }
  }

  /** A condition polled by {@link #await}. */
  interface Check {
    boolean ok() throws Exception;
  }

  /**
   * For failure messages: each live worker's executors (from Nimbus) and the stacks of its threads that run
   * Trident, Epochal or JDBC code ({@code jcmd Thread.print}).
   */
  String workerStacks() {
    StringBuilder b = new StringBuilder();
    try (NimbusClient n = nimbus()) {
      for (var t : n.getClient().getClusterInfo().get_topologies()) {
        for (var e : n.getClient().getTopologyInfo(t.get_id()).get_executors()) {
          b.append("  executor ").append(e.get_component_id()).append(" task ").append(e.get_executor_info()
              .get_task_start()).append(" on port ").append(e.get_port()).append('\n');
        }
      }
    } catch (Exception e) {
      b.append("  (cannot ask Nimbus: ").append(e).append(")\n");
    }
    for (long pid : allWorkerPids()) {
      try {
        b.append("== stacks of worker ").append(pid).append(" (port ").append(workerPort(pid)).append(")\n");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
            Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
        String dump = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        for (String thread : dump.split("\n\n")) {
          if (thread.contains("io.epochal") || thread.contains("org.postgresql") || thread.contains("trident")) {
            b.append(thread.length() > 4000 ? thread.substring(0, 4000) : thread).append("\n\n");
          }
        }
      } catch (IOException | InterruptedException | RuntimeException e) {
        b.append("  (cannot dump: ").append(e).append(")\n");
      }
    }
    return b.toString();
  }

  /** For failure messages: the ERROR, exception and cause lines of every worker log, cut to 300 characters. */
  String workerErrors() {
    StringBuilder b = new StringBuilder();
    Path root = home.resolve("logs/workers-artifacts");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f) && f.getFileName().toString().startsWith("worker.log")) {
          b.append("== errors in ").append(home.relativize(f)).append('\n');
          for (String line : Files.readAllLines(f)) {
            if (line.contains(" ERROR ") || line.startsWith("Caused by") || line.contains("Exception: ")) {
              b.append("  ").append(line.length() > 300 ? line.substring(0, 300) : line).append('\n');
            }
          }
        }
      }
    } catch (IOException | UncheckedIOException e) {
      b.append("(cannot read worker logs: ").append(e).append(")\n");
    }
    return b.toString();
  }

  /** The tail of every log of the cluster, for failure messages. */
  String logs() {
    StringBuilder b = new StringBuilder();
    try (Stream<Path> files = Files.walk(home.resolve("logs"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          String s = Files.readString(f);
          b.append("== ").append(home.relativize(f)).append('\n')
              .append(s.length() > 3000 ? s.substring(s.length() - 3000) : s).append('\n');
        }
      }
    } catch (IOException e) {
      b.append("(cannot read logs: ").append(e).append(")");
    }
    return b.toString();
  }

  private synchronized void killAll() {
    try {
      allWorkerPids();
    } catch (RuntimeException e) {
      LOG.warn("cannot list worker pids", e);
    }
    recordDescendants();
    for (String s : List.of("supervisor1", "supervisor2")) {
      Process p = daemons.get(s);
      if (p != null) {
        p.destroyForcibly();
      }
    }
    for (long pid : seen) {
      kill(pid, true);
    }
    Process nimbus = daemons.get("nimbus");
    if (nimbus != null) {
      nimbus.destroy();
      try {
        if (!nimbus.waitFor(3, java.util.concurrent.TimeUnit.SECONDS)) {
          nimbus.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        nimbus.destroyForcibly();
      }
    }
    Process zk = daemons.get("zookeeper");
    if (zk != null) {
      zk.destroyForcibly();
    }
    for (Process p : daemons.values()) {
      try {
        p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (long pid : seen) {
      ProcessHandle.of(pid).ifPresent(h -> {
        try {
          h.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          LOG.warn("process {} still alive 5 s after its SIGKILL", pid);
        }
      });
    }
  }

  @Override
  public void close() {
    killAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is exiting: the hook runs anyway
    }
  }

  /** Live processes this fixture started or recorded (for the test's cleanup check). */
  List<Long> alive() {
    List<Long> out = new ArrayList<>();
    daemons.values().stream().filter(Process::isAlive).forEach(p -> out.add(p.pid()));
    seen.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).forEach(out::add);
    return out;
  }
}
