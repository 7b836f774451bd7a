package io.epochal.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.architecture.ModuleRules.Ceiling;
import io.epochal.architecture.ModuleRules.Module;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules of issue 11 over the project itself: every module of the root pom, its compiled main classes
 * ({@code target/classes}, so this module runs last in the reactor) and its main sources. The project root is the
 * system property {@code epochal.root} (set by this module's pom), else the parent of the working directory.
 */
class ModuleStructureTest {
  /** The most lines a main source file may have without a ceiling. */
  static final int MAX_LINES = 500;
  /** The largest share of all main source lines one module may hold. */
  static final double MAX_SHARE = 0.25;

  /**
   * Main source files allowed above {@link #MAX_LINES}, shrink-only: a file may not grow above its ceiling, and a
   * ceiling must be removed once its file is back within the limit.
   */
  static final List<Ceiling> CEILINGS = List.of();

  private static Path root;
  private static List<Module> modules;

  @BeforeAll
  static void findModules() {
    String property = System.getProperty("epochal.root");
    root = (property != null ? Path.of(property) : Path.of("").toAbsolutePath().getParent()).normalize();
    modules = ModuleRules.modulesOf(root).stream().filter(m -> !m.name().equals("architecture-tests")).toList();
    assertTrue(modules.size() >= 10, "modules of " + root + ": " + modules);
    for (Module m : modules) {
      if (Files.isDirectory(m.sources())) {
        assertTrue(Files.isDirectory(m.classes()), m.name() + " has main sources but no " + m.classes()
            + ": build every module first (this module runs last in the reactor)");
      }
    }
  }

  @Test
  void noClassReferencesAnotherModulesInternalPackage() {
    assertEquals(List.of(), ModuleRules.crossModuleInternalReferences(modules));
  }

  @Test
  void noPackageIsSplitOverTwoModules() {
    assertEquals(List.of(), ModuleRules.splitPackages(modules));
  }

  @Test
  void noModuleHoldsMoreThanAQuarterOfTheMainCode() {
    Map<String, Long> lines = ModuleRules.mainLines(modules);
    assertTrue(lines.get("batch-core") > 0, "batch-core's sources were counted: " + lines);
    assertEquals(List.of(), ModuleRules.oversizedModules(modules, MAX_SHARE), "main source lines: " + lines);
  }

  @Test
  void noMainClassIsOverFiveHundredLinesBeyondTheShrinkOnlyCeilings() {
    assertEquals(List.of(), ModuleRules.oversizedClasses(modules, root, MAX_LINES, CEILINGS));
  }
}
