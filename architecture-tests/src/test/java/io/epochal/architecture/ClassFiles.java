package io.epochal.architecture;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the constant pool of a compiled class (JVMS chapter 4.4): the class's own name and every class it references,
 * from its {@code CONSTANT_Class} entries and from every type named in a descriptor or generic signature (field,
 * method, local and annotation types are all {@code CONSTANT_Utf8} entries). String literals are not references.
 * Stateless and thread-safe.
 */
final class ClassFiles {
  private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([A-Za-z_$][\\w$]*(?:/[\\w$]+)+)[;<]");

  private ClassFiles() {
  }

  /** The name of a class and the classes it references, both as binary names with dots ({@code a.b.C$D}). */
  record Parsed(String name, Set<String> references) {
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not a class file
   */
  static Parsed parse(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalArgumentException("not a class file (magic)");
      }
      in.readUnsignedShort(); // minor
      in.readUnsignedShort(); // major
      int count = in.readUnsignedShort();
      String[] utf8 = new String[count];
      int[] classNameIndex = new int[count];
      Set<Integer> stringLiterals = new HashSet<>();
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> utf8[i] = in.readUTF();
          case 7 -> classNameIndex[i] = in.readUnsignedShort();
          case 8 -> stringLiterals.add(in.readUnsignedShort());
          case 16, 19, 20 -> in.readUnsignedShort(); // MethodType (its descriptor is a Utf8, scanned below), Module, Package
          case 15 -> {
            in.readUnsignedByte();
            in.readUnsignedShort();
          }
          case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
          case 5, 6 -> {
            in.readLong();
            i++; // 8-byte constants take two slots
          }
          default -> throw new IllegalArgumentException("unknown constant pool tag " + tag + " at " + i);
        }
      }
      in.readUnsignedShort(); // access flags
      int thisClass = in.readUnsignedShort();
      String name = binary(utf8[classNameIndex[thisClass]]);
      Set<String> refs = new TreeSet<>();
      for (int i = 1; i < count; i++) {
        if (classNameIndex[i] != 0) {
          String n = utf8[classNameIndex[i]];
          if (n.startsWith("[")) {
            addDescriptorTypes(n, refs);
          } else {
            refs.add(binary(n));
          }
        }
      }
      for (int i = 1; i < count; i++) {
        if (utf8[i] != null && !stringLiterals.contains(i)) {
          addDescriptorTypes(utf8[i], refs);
        }
      }
      refs.remove(name);
      return new Parsed(name, refs);
    } catch (IOException e) {
      throw new UncheckedIOException("truncated class file", e);
    }
  }

  private static void addDescriptorTypes(String s, Set<String> refs) {
    Matcher m = TYPE_IN_DESCRIPTOR.matcher(s);
    while (m.find()) {
      refs.add(binary(m.group(1)));
    }
  }

  private static String binary(String internalName) {
    return internalName.replace('/', '.');
  }

  /** @return the package of a binary class name, {@code ""} for the default package */
  static String packageOf(String className) {
    int dot = className.lastIndexOf('.');
    return dot < 0 ? "" : className.substring(0, dot);
  }
}
