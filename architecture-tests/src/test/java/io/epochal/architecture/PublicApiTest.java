package io.epochal.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.architecture.ModuleRules.Module;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiRules} over the project's library modules (applications and test-only modules are exempt), and on
 * fixtures showing each rule failing.
 */
class PublicApiTest {
  /** Modules that are applications or tests, not a library API. */
  static final Set<String> NOT_LIBRARIES = Set.of("examples", "benchmarks", "storm-cluster-tests",
      "architecture-tests");

  @Test
  void everyPublicTypeHasOneStabilityMarkerSinceAndThreadSafety() {
    String property = System.getProperty("epochal.root");
    Path root = (property != null ? Path.of(property) : Path.of("").toAbsolutePath().getParent()).normalize();
    List<Module> libraries = ModuleRules.modulesOf(root).stream()
        .filter(m -> !NOT_LIBRARIES.contains(m.name())).toList();
    assertTrue(libraries.size() >= 10, "library modules of " + root + ": " + libraries);
    assertEquals(List.of(), ApiRules.violations(libraries, root));
  }

  @Test
  void eachRuleFailsOnAFixture() {
    String good = "package p;\n\nimport io.epochal.api.Stable;\n\n/**\n * A value. Immutable.\n *\n * @since 0.1.0\n"
        + " */\n@Stable\npublic final class Good {\n}\n";
    assertEquals(List.of(), ApiRules.check("Good.java", good));
    assertEquals(List.of("None.java: Good carries 0 stability markers (@Stable, @Evolving or @Experimental), not one"),
        ApiRules.check("None.java", good.replace("@Stable\n", "")));
    assertEquals(List.of("Two.java: Good carries 2 stability markers (@Stable, @Evolving or @Experimental), not one"),
        ApiRules.check("Two.java", good.replace("@Stable\n", "@Stable\n@Evolving\n")));
    assertEquals(List.of(), ApiRules.check("Qualified.java", good.replace("@Stable\n", "@io.epochal.api.Stable\n")));
    assertEquals(List.of("Since.java: Good's Javadoc has no @since"),
        ApiRules.check("Since.java", good.replace(" * @since 0.1.0\n", "")));
    assertEquals(List.of("Safe.java: Good's Javadoc does not say whether it is thread-safe"),
        ApiRules.check("Safe.java", good.replace("Immutable.", "A thing.")));
    assertEquals(List.of(), ApiRules.check("Ex.java", good.replace("Immutable.", "A thing.")
        .replace("class Good {", "class Good extends IllegalStateException {")), "exceptions are not shared");
    assertEquals(List.of(), ApiRules.check("Iface.java", good.replace("Immutable.", "A thing.")
        .replace("final class Good", "interface Good")), "interfaces state contracts, not instances");
    assertEquals(List.of("NoDoc.java: public class Good has no Javadoc"),
        ApiRules.check("NoDoc.java", "package p;\n\npublic class Good {\n}\n"));
    assertEquals(List.of(), ApiRules.check("Hidden.java", "package p;\n\nfinal class Hidden {\n}\n"));
  }
}
