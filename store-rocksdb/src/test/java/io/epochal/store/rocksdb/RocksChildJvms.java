package io.epochal.store.rocksdb;

import io.epochal.testkit.process.ChildJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Starts the testkit's {@link ChildJvm}s for RocksDB crash tests: the RocksDB native library is extracted once per test
 * JVM and put on the child's {@code java.library.path}, so a child does not spend ~0.2 s extracting it again.
 */
final class RocksChildJvms {
  private static Path nativeDir;

  private RocksChildJvms() {
  }

  /** Starts {@code mainClass} with {@code args} in a new JVM over this JVM's classpath. */
  static ChildJvm start(Class<?> mainClass, List<String> args) throws IOException {
    return ChildJvm.start(mainClass, List.of("-Djava.library.path=" + nativeLibraryDir()), args);
  }

  private static synchronized Path nativeLibraryDir() throws IOException {
    if (nativeDir == null) {
      String name = Environment.getJniLibraryFileName("rocksdb");
      Path dir = Files.createTempDirectory("epochal-rocksdbjni");
      try (InputStream in = RocksDB.class.getClassLoader().getResourceAsStream(name)) {
        if (in == null) {
          return dir; // not in the jar: the child extracts it itself
        }
        Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
      dir.resolve(name).toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      nativeDir = dir;
    }
    return nativeDir;
  }
}
