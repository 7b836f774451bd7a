package io.epochal.architecture;

import io.epochal.architecture.ModuleRules.Module;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The rules of the published API (issue 16, item 7), over the main sources of a set of library modules. A public
 * top-level type outside an {@code .internal} package must carry exactly one stability marker
 * ({@code @Stable}, {@code @Evolving}, {@code @Experimental} of {@code io.epochal.api}) and a Javadoc with
 * {@code @since}; a concrete public class that is not a {@link Throwable} must say in its Javadoc whether it is
 * thread-safe (or immutable, stateless, confined to one thread). Each rule returns its violations as sentences
 * (empty: the rule holds), so it runs the same on the project ({@link PublicApiTest}) and on fixtures. Stateless.
 */
final class ApiRules {
  private static final Pattern DECLARATION = Pattern.compile("^public\\s+((?:final|abstract|sealed|non-sealed|"
      + "strictfp)\\s+)*(class|interface|record|enum|@interface)\\s+(\\w+)([^{]*)", Pattern.MULTILINE);
  private static final Pattern MARKER =
      Pattern.compile("^@(?:io\\.epochal\\.api\\.)?(Stable|Evolving|Experimental)\\b", Pattern.MULTILINE);
  private static final Pattern SAFETY = Pattern.compile("thread[- ]safe|immutable|stateless|one thread|single thread"
      + "|confined|synchroni[sz]ed", Pattern.CASE_INSENSITIVE);
  private static final Pattern THROWABLE = Pattern.compile("\\bextends\\s+[\\w.]*(Exception|Error|Throwable|Failure)\\b");

  private ApiRules() {
  }

  /** @return one sentence per public type of {@code modules} that breaks a rule, naming the file and the rule */
  static List<String> violations(List<Module> modules, Path root) {
    List<String> out = new ArrayList<>();
    for (Module m : modules) {
      for (Path file : publicSources(m)) {
        String name = root.relativize(file).toString();
        out.addAll(check(name, read(file)));
      }
    }
    return out;
  }

  /** The violations of one source file ({@code name} is how they name it). */
  static List<String> check(String name, String source) {
    Matcher d = DECLARATION.matcher(source);
    if (!d.find()) {
      return List.of(); // not a public type
    }
    List<String> out = new ArrayList<>();
    String head = source.substring(0, d.start());
    int docStart = head.lastIndexOf("/**");
    int docEnd = head.lastIndexOf("*/");
    if (docStart < 0 || docEnd < docStart) {
      return List.of(name + ": public " + d.group(2) + " " + d.group(3) + " has no Javadoc");
    }
    String doc = head.substring(docStart, docEnd);
    String between = head.substring(docEnd + 2);
    Matcher markers = MARKER.matcher(between);
    int count = 0;
    while (markers.find()) {
      count++;
    }
    if (count != 1) {
      out.add(name + ": " + d.group(3) + " carries " + count + " stability markers (@Stable, @Evolving or"
          + " @Experimental), not one");
    }
    if (!doc.contains("@since")) {
      out.add(name + ": " + d.group(3) + "'s Javadoc has no @since");
    }
    boolean concreteClass = d.group(2).equals("class") && (d.group(1) == null || !d.group(1).contains("abstract"));
    if (concreteClass && !THROWABLE.matcher(d.group(4)).find() && !SAFETY.matcher(doc).find()) {
      out.add(name + ": " + d.group(3) + "'s Javadoc does not say whether it is thread-safe");
    }
    return out;
  }

  private static List<Path> publicSources(Module module) {
    if (!Files.isDirectory(module.sources())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(module.sources())) {
      return files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> !f.getFileName().toString().equals("package-info.java"))
          .filter(f -> !module.sources().relativize(f).toString().contains("internal"))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
