package io.epochal.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The module rules of issue 11, over the compiled main classes ({@code target/classes}) and main sources
 * ({@code src/main/java}) of a set of modules. Each rule returns its violations as sentences (empty: the rule holds),
 * so it runs the same on the project ({@link ModuleStructureTest}) and on small fixtures ({@link ModuleRulesTest}).
 * Stateless; every call reads the files again.
 */
final class ModuleRules {
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  private ModuleRules() {
  }

  /** One module: its name, its compiled main classes and its main sources (either may be missing). */
  record Module(String name, Path classes, Path sources) {
    Module {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(classes, "classes");
      Objects.requireNonNull(sources, "sources");
    }

    /** The module in directory {@code root/name}, with Maven's layout. */
    static Module at(Path root, String name) {
      Path dir = root.resolve(name);
      return new Module(name, dir.resolve("target/classes"), dir.resolve("src/main/java"));
    }
  }

  /** A class allowed above the size limit, up to {@code lines}, and why. */
  record Ceiling(String sourceFile, int lines, String why) {
  }

  /**
   * @return the modules listed in {@code root/pom.xml}, in reactor order
   * @throws UncheckedIOException if the pom cannot be read
   */
  static List<Module> modulesOf(Path root) {
    List<Module> modules = new ArrayList<>();
    Matcher m = MODULE.matcher(read(root.resolve("pom.xml")));
    while (m.find()) {
      modules.add(Module.at(root, m.group(1).trim()));
    }
    return modules;
  }

  /** @return per module, the packages of its compiled main classes */
  static Map<String, Set<String>> packagesByModule(List<Module> modules) {
    Map<String, Set<String>> packages = new TreeMap<>();
    for (Module module : modules) {
      Set<String> own = new TreeSet<>();
      for (ClassFiles.Parsed c : classes(module)) {
        own.add(ClassFiles.packageOf(c.name()));
      }
      packages.put(module.name(), own);
    }
    return packages;
  }

  /**
   * Rule (a): no class of module A references a class of a {@code .internal} package (a package with an
   * {@code internal} segment) owned by module B other than A.
   */
  static List<String> crossModuleInternalReferences(List<Module> modules) {
    Map<String, String> owner = owners(modules);
    List<String> violations = new ArrayList<>();
    for (Module module : modules) {
      for (ClassFiles.Parsed c : classes(module)) {
        for (String ref : c.references()) {
          String pkg = ClassFiles.packageOf(ref);
          String by = owner.get(pkg);
          if (by != null && !by.equals(module.name()) && isInternal(pkg)) {
            violations.add(module.name() + ": " + c.name() + " references " + ref + " (internal to " + by + ")");
          }
        }
      }
    }
    return violations;
  }

  /** Rule (b): no package has main classes in two modules. */
  static List<String> splitPackages(List<Module> modules) {
    Map<String, Set<String>> modulesOfPackage = new TreeMap<>();
    packagesByModule(modules).forEach((module, packages) -> packages.forEach(
        p -> modulesOfPackage.computeIfAbsent(p, k -> new TreeSet<>()).add(module)));
    List<String> violations = new ArrayList<>();
    modulesOfPackage.forEach((p, in) -> {
      if (in.size() > 1) {
        violations.add("package " + p + " is split over " + in);
      }
    });
    return violations;
  }

  /** @return per module, the number of lines of its main sources */
  static Map<String, Long> mainLines(List<Module> modules) {
    Map<String, Long> lines = new TreeMap<>();
    for (Module module : modules) {
      lines.put(module.name(), javaFiles(module).stream().mapToLong(ModuleRules::lineCount).sum());
    }
    return lines;
  }

  /** Rule (c): no module holds more than {@code maxShare} of all main source lines. */
  static List<String> oversizedModules(List<Module> modules, double maxShare) {
    Map<String, Long> lines = mainLines(modules);
    long total = lines.values().stream().mapToLong(Long::longValue).sum();
    List<String> violations = new ArrayList<>();
    lines.forEach((module, n) -> {
      if (total > 0 && n > maxShare * total) {
        violations.add(String.format("%s holds %d of %d main source lines (%.1f%%, above %.0f%%)", module, n, total,
            100.0 * n / total, 100 * maxShare));
      }
    });
    return violations;
  }

  /**
   * Rule (d): no main source file is over {@code maxLines} lines, except the files of {@code ceilings}, which may not
   * grow above their ceiling; a ceiling whose file is gone or back within {@code maxLines} must be removed (so the
   * list can only shrink). Files are named relative to the modules' parent, {@code module/src/main/java/...}.
   */
  static List<String> oversizedClasses(List<Module> modules, Path root, int maxLines, List<Ceiling> ceilings) {
    Map<String, Ceiling> byFile = new TreeMap<>();
    for (Ceiling c : ceilings) {
      if (byFile.put(c.sourceFile(), c) != null) {
        throw new IllegalArgumentException("two ceilings for " + c.sourceFile());
      }
    }
    List<String> violations = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    for (Module module : modules) {
      for (Path file : javaFiles(module)) {
        String name = root.relativize(file).toString().replace('\\', '/');
        long n = lineCount(file);
        Ceiling ceiling = byFile.get(name);
        if (ceiling != null) {
          seen.add(name);
          if (n > ceiling.lines()) {
            violations.add(name + " has " + n + " lines, above its ceiling of " + ceiling.lines());
          } else if (n <= maxLines) {
            violations.add(name + " has " + n + " lines, within " + maxLines + ": remove its ceiling");
          }
        } else if (n > maxLines) {
          violations.add(name + " has " + n + " lines, above " + maxLines);
        }
      }
    }
    for (String name : byFile.keySet()) {
      if (!seen.contains(name)) {
        violations.add("ceiling for " + name + ", which is no main source file any more: remove it");
      }
    }
    return violations;
  }

  private static boolean isInternal(String pkg) {
    return pkg.equals("internal") || pkg.endsWith(".internal") || pkg.contains(".internal.")
        || pkg.startsWith("internal.");
  }

  /** Package → the (first) module whose compiled classes hold it. */
  private static Map<String, String> owners(List<Module> modules) {
    Map<String, String> owner = new TreeMap<>();
    packagesByModule(modules).forEach((module, packages) -> packages.forEach(p -> owner.putIfAbsent(p, module)));
    return owner;
  }

  private static List<ClassFiles.Parsed> classes(Module module) {
    if (!Files.isDirectory(module.classes())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(module.classes())) {
      return files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().equals("module-info.class"))
          .sorted().map(f -> ClassFiles.parse(readBytes(f))).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> javaFiles(Module module) {
    if (!Files.isDirectory(module.sources())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(module.sources())) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The code lines of a source file: lines with something outside comments, blank lines and comment-only lines
   * (Javadoc included) not counted, so that documenting a class never pushes it over a size limit.
   */
  private static long lineCount(Path file) {
    return codeLines(read(file));
  }

  /** The lines of {@code source} holding code outside comments (string, char and text-block literals are code). */
  static long codeLines(String source) {
    long count = 0;
    boolean code = false;
    boolean block = false;
    int n = source.length();
    for (int i = 0; i < n; i++) {
      char c = source.charAt(i);
      char next = i + 1 < n ? source.charAt(i + 1) : '\0';
      if (c == '\n') {
        count += code ? 1 : 0;
        code = false;
      } else if (block) {
        if (c == '*' && next == '/') {
          block = false;
          i++;
        }
      } else if (c == '/' && next == '*') {
        block = true;
        i++;
      } else if (c == '/' && next == '/') {
        while (i + 1 < n && source.charAt(i + 1) != '\n') {
          i++;
        }
      } else if (c == '"' || c == '\'') {
        code = true;
        boolean textBlock = c == '"' && source.startsWith("\"\"\"", i);
        String end = textBlock ? "\"\"\"" : String.valueOf(c);
        i += textBlock ? 3 : 1;
        while (i < n && !source.startsWith(end, i)) {
          if (source.charAt(i) == '\\') {
            i++;
          } else if (source.charAt(i) == '\n') {
            count++; // a text block's lines are code
          }
          i++;
        }
        i += end.length() - 1;
      } else if (!Character.isWhitespace(c)) {
        code = true;
      }
    }
    return count + (code ? 1 : 0);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
