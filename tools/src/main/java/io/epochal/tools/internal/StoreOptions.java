package io.epochal.tools.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The picocli options that name the store to inspect (exactly one of {@code --rocksdb}, {@code --jdbc-url},
 * {@code --yt-proxy}) and open it read-only. Not thread-safe (filled by picocli, used by one command).
 */
public final class StoreOptions {
  @ArgGroup(exclusive = true, multiplicity = "1")
  Which which;

  @Option(names = "--user", description = "PostgreSQL user") String user;
  @Option(names = "--password", description = "PostgreSQL password (default: the PGPASSWORD environment variable)")
  String password;
  @Option(names = "--schema", description = "PostgreSQL schema of the store (default: epochal)") String schema;
  @Option(names = "--yt-root", description = "YTsaurus root of the store's tables and leases") String ytRoot;
  @Option(names = "--yt-token", description = "YTsaurus token (default: YT_TOKEN or ~/.yt/token)") String ytToken;

  /** The store kinds: one of them is given. */
  static final class Which {
    @Option(names = "--rocksdb", paramLabel = "DIR", description = "a RocksDB state directory (opened read-only)")
    Path rocksdb;
    @Option(names = "--jdbc-url", paramLabel = "URL", description = "a PostgreSQL store: jdbc:postgresql://host/db")
    String jdbcUrl;
    @Option(names = "--yt-proxy", paramLabel = "URL", description = "a YTsaurus store: its HTTP proxy")
    String ytProxy;
  }

  /**
   * @return the store, opened read-only
   * @throws IllegalArgumentException if the RocksDB directory does not exist
   */
  public StoreAccess open() {
    if (which.rocksdb != null) {
      if (!Files.isDirectory(which.rocksdb)) {
        throw new IllegalArgumentException("--rocksdb " + which.rocksdb + ": no such directory");
      }
      return new RocksAccess(which.rocksdb);
    }
    if (which.jdbcUrl != null) {
      return new PostgresAccess(which.jdbcUrl, user, password != null ? password : System.getenv("PGPASSWORD"),
          schema);
    }
    return new YtAccess(which.ytProxy, ytRoot, ytToken);
  }
}
