package io.epochal.tools.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Lists the tables under a YTsaurus root with the read-only Cypress commands {@code list} and {@code get <path>/@type}
 * of the HTTP proxy API v4 (what the {@code TableStore} SPI does not offer): the store-relative paths of every table
 * in the root's subtree, sorted. The token is {@code --yt-token}, else {@code YT_TOKEN}, else {@code ~/.yt/token}.
 * Thread-safe.
 */
final class YtTableLister {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The YTsaurus error code of a path that does not resolve. */
  private static final int RESOLVE_ERROR = 500;

  private final URI base;
  private final Optional<String> token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  YtTableLister(String proxy, Optional<String> token) {
    String p = proxy.trim();
    p = p.startsWith("http://") || p.startsWith("https://") ? p : "http://" + p;
    this.base = URI.create(p.replaceAll("/+$", "") + "/");
    this.token = token.or(YtTableLister::defaultToken);
  }

  private static Optional<String> defaultToken() {
    String env = System.getenv("YT_TOKEN");
    if (env != null && !env.isBlank()) {
      return Optional.of(env.trim());
    }
    Path file = Path.of(System.getProperty("user.home", "."), ".yt", "token");
    try {
      return Files.isReadable(file) ? Optional.of(Files.readString(file).trim()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** @return the paths, relative to {@code root}, of every table under it */
  List<String> tables(String root) {
    List<String> out = new ArrayList<>();
    walk(root, "", out);
    out.sort(null);
    return out;
  }

  private void walk(String path, String relative, List<String> out) {
    Optional<JsonNode> type = call("get", path + "/@type");
    if (type.isEmpty()) {
      return;
    }
    if (type.get().asText().equals("table")) {
      out.add(relative);
    } else if (type.get().asText().equals("map_node")) {
      for (JsonNode child : call("list", path).orElseThrow(() -> new StoreException("YTsaurus at " + base
          + ": node " + path + " vanished while listing it", null, true, ErrorContext.NONE))) {
        String name = child.asText();
        walk(path + "/" + name, relative.isEmpty() ? name : relative + "/" + name, out);
      }
    }
  }

  /** @return whether a YTsaurus error (JSON) is or holds a resolve error (code 500: no such node) */
  private static boolean isResolveError(String error) {
    try {
      return holdsCode(JSON.readTree(error), RESOLVE_ERROR);
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean holdsCode(JsonNode error, int code) {
    if (error.path("code").asInt() == code) {
      return true;
    }
    for (JsonNode inner : error.path("inner_errors")) {
      if (holdsCode(inner, code)) {
        return true;
      }
    }
    return false;
  }

  /** @return the {@code value} of the command's answer, or empty if the node does not exist (HTTP 4xx/5xx) */
  private Optional<JsonNode> call(String command, String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/api/v4/" + command)).GET()
        .timeout(Duration.ofSeconds(30))
        .header("X-YT-Parameters", JSON.createObjectNode().put("path", path).put("output_format", "json").toString())
        .header("Accept", "application/json");
    token.ifPresent(t -> b.header("Authorization", "OAuth " + t));
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        if (isResolveError(r.body().isBlank() ? r.headers().firstValue("X-YT-Error").orElse("{}") : r.body())) {
          return Optional.empty(); // no such node
        }
        throw new StoreException("YTsaurus at " + base + " refused " + command + " " + path + ": HTTP "
            + r.statusCode() + " " + r.body(), null, false, ErrorContext.NONE);
      }
      JsonNode answer = JSON.readTree(r.body());
      return Optional.of(answer.has("value") ? answer.get("value") : answer);
    } catch (IOException e) {
      throw new StoreException("YTsaurus at " + base + " unreachable: " + e.getMessage(), e, true,
          ErrorContext.NONE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while listing " + path, e, true, ErrorContext.NONE);
    }
  }
}
