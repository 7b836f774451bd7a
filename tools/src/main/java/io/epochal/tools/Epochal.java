package io.epochal.tools;

import io.epochal.api.Evolving;
import io.epochal.tools.internal.CheckpointShow;
import io.epochal.tools.internal.Errors;
import io.epochal.tools.internal.StateCommands;
import io.epochal.tools.internal.ToolCommand;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code epochal} command, which inspects the state of a table store read-only (it never writes and never takes
 * a lease, so it runs beside a pipeline and on a read-only copy):
 * <pre>
 * epochal state dump       (--rocksdb DIR | --jdbc-url URL [--user U --password P --schema S] | --yt-proxy URL
 *                           [--yt-root ROOT]) [--table PATH] [--json]
 * epochal state get        STORE --table PATH --key K[,K2...] [--json]
 * epochal state stats      STORE [--table PATH] [--json]
 * epochal checkpoint show  STORE [--pipeline NAME] [--metadata-codec ID...] [--table-prefix P] [--json]
 * </pre>
 * Values are decoded with the codec id each table records ({@code epochal.codec}); a value whose codec the tool
 * cannot build is printed as hex with a note saying so. A cell that cannot be read is reported on standard error and
 * skipped; the command then exits with 1 after showing everything else. Exit codes: 0 everything read, 1 some cells
 * unreadable (or no such key or pipeline), 2 wrong usage, 3 the store could not be opened or read.
 *
 * <p>Run it with {@code mvn -pl tools exec:java -Dexec.args="state dump --rocksdb DIR"}, or
 * {@code java -cp "$(cat cp.txt):tools/target/classes" io.epochal.tools.Epochal ...} (see the README).
 *
 * <p>Thread-safety: {@link #run} may be called from several threads at once; each call is independent.
 *
 * @since 0.2.0
 */
@Command(name = "epochal", mixinStandardHelpOptions = true, version = "epochal 0.1.0-SNAPSHOT",
    description = "Inspect the state and checkpoints of an Epochal table store, read-only.",
    subcommands = {StateCommands.class, CheckpointShow.Group.class})
@Evolving
public final class Epochal {
  private Epochal() {
  }

  /**
   * Runs the command and exits the JVM with its exit code.
   *
   * @param args the command line, e.g. {@code state dump --rocksdb DIR}
   */
  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command with {@code out} and {@code err} as standard output and error.
   *
   * @param args the command line, e.g. {@code state dump --rocksdb DIR}
   * @param out where the command's report goes (text, or JSON with {@code --json})
   * @param err where unreadable cells, usage errors and store failures are reported
   * @return the exit code (0 everything read, 1 some cells unreadable, 2 wrong usage, 3 store failure)
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    PrintWriter o = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    PrintWriter e = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    CommandLine cl = new CommandLine(new Epochal()).setOut(o).setErr(e);
    cl.setExecutionExceptionHandler((ex, line, parsed) -> {
      line.getErr().println("error: " + Errors.oneLine(ex));
      line.getErr().flush();
      return ex instanceof IllegalArgumentException || ex instanceof UnsupportedOperationException
          ? ToolCommand.USAGE : ToolCommand.FAILED;
    });
    int code = cl.execute(args);
    o.flush();
    e.flush();
    return code;
  }
}
