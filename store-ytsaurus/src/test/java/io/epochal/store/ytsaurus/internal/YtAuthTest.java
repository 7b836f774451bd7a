package io.epochal.store.ytsaurus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YtAuthTest {
  @TempDir
  Path home;

  @Test
  void shouldPreferTheEnvironmentThenTheTokenFile() throws IOException {
    assertEquals(Optional.empty(), YtAuth.resolveToken(Map.of(), home));
    Files.createDirectories(home.resolve(".yt"));
    Files.writeString(home.resolve(".yt/token"), "  from-file\n");
    assertEquals(Optional.of("from-file"), YtAuth.resolveToken(Map.of(), home));
    assertEquals(Optional.of("from-env"), YtAuth.resolveToken(Map.of("YT_TOKEN", "from-env"), home));
    assertEquals(Optional.of("from-file"), YtAuth.resolveToken(Map.of("YT_TOKEN", " "), home));
  }
}
