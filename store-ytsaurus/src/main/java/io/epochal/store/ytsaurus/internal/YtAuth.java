package io.epochal.store.ytsaurus.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the OAuth token the way the official tools do: the {@code YT_TOKEN} environment variable, else the file
 * {@code ~/.yt/token}. No token means anonymous requests (a local cluster's {@code root} with an empty token). The
 * token is never logged.
 */
public final class YtAuth {
  private YtAuth() {
  }

  /**
   * Finds the OAuth token: {@code YT_TOKEN}, else {@code ~/.yt/token}.
   *
   * @param env the environment (usually {@link System#getenv()})
   * @param home the user's home directory (usually {@code user.home})
   * @return the token, empty if none is configured
   * @throws UncheckedIOException if {@code ~/.yt/token} exists but cannot be read
   */
  public static Optional<String> resolveToken(Map<String, String> env, Path home) {
    String fromEnv = env.get("YT_TOKEN");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(fromEnv.trim());
    }
    if (home == null) {
      return Optional.empty();
    }
    Path file = home.resolve(".yt").resolve("token");
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      String token = Files.readString(file, StandardCharsets.UTF_8).trim();
      return token.isEmpty() ? Optional.empty() : Optional.of(token);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read YTsaurus token file " + file, e);
    }
  }
}
