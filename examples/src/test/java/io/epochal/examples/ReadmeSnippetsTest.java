package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of the top-level {@code README.md} is test code: each must appear, whitespace
 * collapsed, between {@code // README begin <id>} and {@code // README end <id>} lines of some test source under
 * {@code <module>/src/test/java}, so it compiles with that module's tests (and runs where the test runs it). Several
 * marked regions with the same id in one file are joined in file order, for a block that mixes declarations and
 * statements. A block in no test fails, naming its README line and first line; a marked region that matches no block
 * (the README changed, the test did not) fails too, naming its file and line. Lives in {@code examples}, the module
 * that depends on every other, so it runs after the modules whose tests hold the snippets. Stateless.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern BEGIN = Pattern.compile("^\\s*// README begin ([A-Za-z0-9._-]+)\\s*$");
  private static final Pattern END = Pattern.compile("^\\s*// README end ([A-Za-z0-9._-]+)\\s*$");

  /** A {@code ```java} block of the README: the line of its opening fence and its text. */
  record Block(int line, String text) {
    String firstLine() {
      return text.lines().filter(l -> !l.isBlank()).findFirst().orElse("").trim();
    }
  }

  /** The marked regions of one id in one test source, joined; {@code line} is the first begin marker's line. */
  record Region(String id, Path file, int line, String text) {
  }

  @Test
  void everyJavaBlockOfTheReadmeIsHeldByATest() throws IOException {
    List<Block> blocks = javaBlocks(Files.readString(ROOT.resolve("README.md")));
    assertFalse(blocks.isEmpty(), "README.md has java blocks");
    List<Region> regions = regions();
    Map<String, Region> byText = new LinkedHashMap<>();
    for (Region r : regions) {
      byText.putIfAbsent(collapse(r.text()), r);
    }
    List<String> problems = new ArrayList<>();
    for (Block b : blocks) {
      if (!byText.containsKey(collapse(b.text()))) {
        problems.add("README.md line " + b.line() + ": the java block starting `" + b.firstLine() + "` is in no test");
      }
    }
    List<String> readme = blocks.stream().map(b -> collapse(b.text())).toList();
    for (Region r : regions) {
      if (!readme.contains(collapse(r.text()))) {
        problems.add(ROOT.relativize(r.file()) + " line " + r.line() + ": region `" + r.id()
            + "` matches no java block of README.md (update the test or the README so they are identical)");
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems) + "\nEvery java block of README.md must appear, "
        + "verbatim up to whitespace, between `// README begin <id>` and `// README end <id>` lines of a test under "
        + "<module>/src/test/java (regions of one id in one file are joined in order).");
  }

  @Test
  void blocksAndRegionsAreFoundAsDocumented() {
    List<Block> blocks = javaBlocks("text\n```java\nint a = 1;\n  int b;\n```\n```bash\nls\n```\n```java\nx();\n```\n");
    assertEquals(List.of(new Block(2, "int a = 1;\n  int b;\n"), new Block(9, "x();\n")), blocks);
    assertEquals("int a = 1;", blocks.get(0).firstLine());
    assertEquals("int a = 1; int b;", collapse(blocks.get(0).text()));
  }

  /** The {@code ```java} blocks of {@code markdown}, in order. */
  static List<Block> javaBlocks(String markdown) {
    List<Block> blocks = new ArrayList<>();
    List<String> lines = markdown.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).trim().equals("```java")) {
        StringBuilder text = new StringBuilder();
        int j = i + 1;
        while (j < lines.size() && !lines.get(j).trim().startsWith("```")) {
          text.append(lines.get(j)).append('\n');
          j++;
        }
        blocks.add(new Block(i + 1, text.toString()));
        i = j;
      }
    }
    return blocks;
  }

  /** Every marked region of every test source of every module. */
  static List<Region> regions() throws IOException {
    List<Path> sources;
    try (Stream<Path> modules = Files.list(ROOT)) {
      sources = modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory)
          .flatMap(ReadmeSnippetsTest::javaFiles).sorted().toList();
    }
    List<Region> regions = new ArrayList<>();
    Map<String, Path> owner = new LinkedHashMap<>();
    for (Path source : sources) {
      for (Region r : regionsOf(source, Files.readAllLines(source))) {
        Path first = owner.putIfAbsent(r.id(), source);
        if (first != null) {
          throw new AssertionError("README region id `" + r.id() + "` is used in " + ROOT.relativize(first)
              + " and " + ROOT.relativize(source) + ": ids must be unique");
        }
        regions.add(r);
      }
    }
    return regions;
  }

  private static Stream<Path> javaFiles(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList()).stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The regions of one source, those of one id joined in order; a marker without its pair fails, naming it. */
  static List<Region> regionsOf(Path file, List<String> lines) {
    Map<String, Region> byId = new LinkedHashMap<>();
    String open = null;
    int openedAt = 0;
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      Matcher begin = BEGIN.matcher(lines.get(i));
      Matcher end = END.matcher(lines.get(i));
      if (begin.matches()) {
        if (open != null) {
          throw new AssertionError(file + " line " + (i + 1) + ": README region `" + begin.group(1)
              + "` begins inside region `" + open + "` (line " + openedAt + ")");
        }
        open = begin.group(1);
        openedAt = i + 1;
        text.setLength(0);
      } else if (end.matches()) {
        if (!end.group(1).equals(open)) {
          throw new AssertionError(file + " line " + (i + 1) + ": `// README end " + end.group(1)
              + "` without its begin" + (open == null ? "" : " (region `" + open + "` is open)"));
        }
        String id = open;
        int at = openedAt;
        String part = text.toString();
        byId.merge(id, new Region(id, file, at, part),
            (a, b) -> new Region(id, file, a.line(), a.text() + b.text()));
        open = null;
      } else if (open != null) {
        text.append(lines.get(i)).append('\n');
      }
    }
    if (open != null) {
      throw new AssertionError(file + " line " + openedAt + ": README region `" + open + "` is never ended");
    }
    return List.copyOf(byId.values());
  }

  static String collapse(String code) {
    return code.replaceAll("\\s+", " ").trim();
  }
}
