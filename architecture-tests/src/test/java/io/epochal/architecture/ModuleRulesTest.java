package io.epochal.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.architecture.ModuleRules.Ceiling;
import io.epochal.architecture.ModuleRules.Module;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each module rule fails on a small synthetic fixture (modules compiled here with the JDK's compiler). */
class ModuleRulesTest {
  @TempDir
  Path root;

  @Test
  void aReferenceToAnotherModulesInternalPackageIsReportedWhereverTheTypeAppears() throws IOException {
    Module core = module("core", Map.of(
        "fix/core/internal/Secret.java", "package fix.core.internal; public class Secret {}",
        "fix/core/Api.java", "package fix.core; public class Api { fix.core.internal.Secret own; }"));
    compile(core);
    Module user = module("user", Map.of(
        "fix/user/AsField.java", "package fix.user; public class AsField { fix.core.internal.Secret s; }",
        "fix/user/InGenerics.java", "package fix.user; import java.util.List; public class InGenerics {"
            + " List<fix.core.internal.Secret> list() { return null; } }",
        "fix/user/Fine.java", "package fix.user; public class Fine { fix.core.Api api;"
            + " String name = \"Lfix/core/internal/Secret;\"; }"));
    compile(user, core.classes());
    List<String> violations = ModuleRules.crossModuleInternalReferences(List.of(core, user));
    assertEquals(List.of(
        "user: fix.user.AsField references fix.core.internal.Secret (internal to core)",
        "user: fix.user.InGenerics references fix.core.internal.Secret (internal to core)"), violations);
    assertEquals(List.of(), ModuleRules.crossModuleInternalReferences(List.of(core)), "a module's own internals");
  }

  @Test
  void aPackageWithClassesInTwoModulesIsReported() throws IOException {
    Module a = module("a", Map.of("fix/shared/One.java", "package fix.shared; public class One {}",
        "fix/a/Own.java", "package fix.a; public class Own {}"));
    Module b = module("b", Map.of("fix/shared/Two.java", "package fix.shared; public class Two {}"));
    compile(a);
    compile(b);
    assertEquals(List.of("package fix.shared is split over [a, b]"), ModuleRules.splitPackages(List.of(a, b)));
    assertEquals(List.of(), ModuleRules.splitPackages(List.of(a)));
  }

  @Test
  void aModuleOverItsShareOfTheMainSourceLinesIsReported() throws IOException {
    Module big = module("big", Map.of("fix/big/Big.java", lines(30)));
    Module small1 = module("small1", Map.of("fix/s1/S.java", lines(5)));
    Module small2 = module("small2", Map.of("fix/s2/S.java", lines(5)));
    List<Module> modules = List.of(big, small1, small2);
    assertEquals(Map.of("big", 30L, "small1", 5L, "small2", 5L), ModuleRules.mainLines(modules));
    assertEquals(List.of("big holds 30 of 40 main source lines (75.0%, above 25%)"),
        ModuleRules.oversizedModules(modules, 0.25));
    assertEquals(List.of(), ModuleRules.oversizedModules(modules, 0.75));
  }

  @Test
  void aClassOverTheLimitFailsUnlessItHasACeilingAndCeilingsCanOnlyShrink() throws IOException {
    Module m = module("m", Map.of("fix/m/Long.java", lines(12), "fix/m/Short.java", lines(5)));
    String longFile = "m/src/main/java/fix/m/Long.java";
    String shortFile = "m/src/main/java/fix/m/Short.java";
    assertEquals(List.of(longFile + " has 12 lines, above 10"), ModuleRules.oversizedClasses(List.of(m), root, 10,
        List.of()));
    assertEquals(List.of(), ModuleRules.oversizedClasses(List.of(m), root, 10, List.of(ceiling(longFile, 12))));
    assertEquals(List.of(longFile + " has 12 lines, above its ceiling of 11"),
        ModuleRules.oversizedClasses(List.of(m), root, 10, List.of(ceiling(longFile, 11))));
    assertEquals(List.of(shortFile + " has 5 lines, within 10: remove its ceiling"),
        ModuleRules.oversizedClasses(List.of(m), root, 10, List.of(ceiling(longFile, 12), ceiling(shortFile, 7))));
    assertEquals(List.of("ceiling for m/src/main/java/fix/m/Gone.java, which is no main source file any more: "
        + "remove it"), ModuleRules.oversizedClasses(List.of(m), root, 20, List.of(ceiling(
            "m/src/main/java/fix/m/Gone.java", 30))));
  }

  @Test
  void onlyCodeLinesCountSoThatDocumentingAClassNeverMakesItOversized() {
    String source = String.join("\n",
        "/** A class.", " *", " * @since 1", " */",       // Javadoc: 0
        "class A {", "", "  // a comment", "  int a; // trailing", // 2
        "  /* inline */ int b;", "  String s = \"/* not a comment */\";", // 2
        "  char c = '\"';", "  String t = \"\"\"", "    text // of a block", "    \"\"\";", // 4
        "  /*", "   int ignored;", "  */", "}") + "\n";              // 1
    assertEquals(9, ModuleRules.codeLines(source));
    assertEquals(0, ModuleRules.codeLines("/**\n * only docs\n */\n\n// and a comment\n"));
  }

  @Test
  void theModulesOfARootPomAreReadInReactorOrder() throws IOException {
    Files.writeString(root.resolve("pom.xml"), "<project><modules>\n<module>core</module>\n"
        + "<module> user </module></modules></project>");
    assertEquals(List.of(Module.at(root, "core"), Module.at(root, "user")), ModuleRules.modulesOf(root));
  }

  private static Ceiling ceiling(String file, int lines) {
    return new Ceiling(file, lines, "fixture");
  }

  private static String lines(int n) {
    return String.join("\n", Collections.nCopies(n, "int field;")) + "\n";
  }

  private Module module(String name, Map<String, String> sources) throws IOException {
    Module m = Module.at(root, name);
    for (Map.Entry<String, String> e : sources.entrySet()) {
      Path file = m.sources().resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, e.getValue());
    }
    return m;
  }

  private static void compile(Module m, Path... classpath) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertTrue(javac != null, "tests need a JDK");
    Files.createDirectories(m.classes());
    List<String> args = new ArrayList<>(List.of("-d", m.classes().toString()));
    if (classpath.length > 0) {
      args.add("-cp");
      args.add(Stream.of(classpath).map(Path::toString).reduce((x, y) -> x + java.io.File.pathSeparator + y)
          .orElseThrow());
    }
    try (Stream<Path> files = Files.walk(m.sources())) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> args.add(f.toString()));
    }
    assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "fixture " + m.name() + " compiles");
  }
}
