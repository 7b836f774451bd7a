package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cypress and table-administration calls through the entry proxy: nodes, attributes, dynamic tables (create, mount
 * and wait, uniform reshard). All calls are {@link YtHttpClient.Phase#SETUP}: retried on retryable errors, with
 * {@code mutation_id} on mutations. A read whose answer lacks the value asked for fails (not retryable) instead of
 * reading as a missing node.
 *
 * <p>Thread-safe.
 */
public final class YtCypress {
  private static final Logger LOG = LoggerFactory.getLogger(YtCypress.class);
  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");

  private final YtHttpClient client;
  private final String proxy;
  private final Duration mountTimeout;

  /**
   * Makes the Cypress client.
   *
   * @param client the client
   * @param proxy the entry proxy for light commands
   * @param mountTimeout how long to wait for {@code @tablet_state == mounted}
   */
  public YtCypress(YtHttpClient client, String proxy, Duration mountTimeout) {
    this.client = client;
    this.proxy = proxy;
    this.mountTimeout = mountTimeout;
  }

  /**
   * The HTTP client Cypress calls go through.
   *
   * @return the client
   */
  public YtHttpClient client() {
    return client;
  }

  /**
   * The proxy Cypress calls are sent to.
   *
   * @return the entry proxy
   */
  public String proxy() {
    return proxy;
  }

  /**
   * Resolves a table path: absolute Cypress paths ({@code //...}) are kept; relative ones
   * ({@code [A-Za-z0-9_.-]+} segments joined by {@code /}) go under {@code root}.
   *
   * @param root the store's root
   * @param path the table-store path
   * @return the Cypress path
   * @throws IllegalArgumentException if a relative path holds other characters (they would need YPath escaping)
   */
  public static String resolve(String root, String path) {
    if (path.startsWith("//")) {
      checkAbsolute(path);
      return path;
    }
    if (!SAFE_NAME.matcher(path).matches()) {
      throw new IllegalArgumentException("table path '" + path + "' is not a Cypress path (//...) and not a "
          + "relative name made of [A-Za-z0-9_.-] segments separated by '/'");
    }
    return root + "/" + path;
  }

  /**
   * Checks that a path is an absolute Cypress path this client accepts.
   *
   * @param path an absolute Cypress path
   * @throws IllegalArgumentException if it is not {@code //} followed by safe segments
   */
  public static void checkAbsolute(String path) {
    if (!path.startsWith("//") || !SAFE_NAME.matcher(path.substring(2)).matches()) {
      throw new IllegalArgumentException("'" + path + "' is not a plain absolute Cypress path: expected // followed "
          + "by [A-Za-z0-9_.-] segments separated by '/' (YPath special characters are not supported)");
    }
  }

  /**
   * Escapes an arbitrary name into one safe path segment: {@code [A-Za-z0-9.-]} kept, every other UTF-8 byte as
   * {@code _HH}.
   *
   * @param name a name
   * @return the segment
   */
  public static String segment(String name) {
    StringBuilder sb = new StringBuilder();
    for (byte b : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-') {
        sb.append(c);
      } else {
        sb.append('_').append(String.format("%02x", b & 0xff));
      }
    }
    return sb.length() == 0 ? "_" : sb.toString();
  }

  /**
   * {@code get path}, or empty if the node (or attribute) does not exist.
   *
   * @param path a path, possibly ending in {@code /@attr}
   * @return the value
   * @throws StoreException (not retryable) if the answer has no {@code value}
   */
  public Optional<JsonNode> get(String path) {
    try {
      return Optional.of(value(client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", path), proxy)),
          "get", path));
    } catch (YtException e) {
      if (e.hasCode(YtError.RESOLVE_ERROR)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Tells whether a Cypress node exists.
   *
   * @param path a path
   * @return whether it exists
   */
  public boolean exists(String path) {
    JsonNode value = value(client.json(Call.setup(YtCommand.EXISTS, YtJson.object().put("path", path), proxy)),
        "exists", path);
    if (!value.isBoolean()) {
      throw malformed("exists", path, "a value that is not a boolean: " + value);
    }
    return value.booleanValue();
  }

  private JsonNode value(JsonNode answer, String command, String path) {
    JsonNode value = answer.get("value");
    if (value == null) {
      throw malformed(command, path, "no value: " + YtRowCodec.abbreviate(answer));
    }
    return value;
  }

  private StoreException malformed(String command, String path, String what) {
    return new StoreException(command + " " + path + " on " + proxy + " answered " + what + "; refusing to read it as "
        + "a missing node", null, false, ErrorContext.of(path, null));
  }

  /**
   * Creates a map node and its parents if missing.
   *
   * @param path the path
   */
  public void createMapNode(String path) {
    ObjectNode p = YtJson.object().put("path", path).put("type", "map_node").put("recursive", true)
        .put("ignore_existing", true);
    client.execute(Call.setup(YtCommand.CREATE, p, proxy).asMutation());
  }

  /**
   * Sets an attribute.
   *
   * @param path the path including {@code /@attr}
   * @param value the value
   * @param prerequisiteTransactionIds prerequisites, or empty
   */
  public void set(String path, JsonNode value, List<String> prerequisiteTransactionIds) {
    ObjectNode p = YtJson.object().put("path", path);
    p.set("value", value);
    if (!prerequisiteTransactionIds.isEmpty()) {
      ArrayNode ids = p.putArray("prerequisite_transaction_ids");
      prerequisiteTransactionIds.forEach(ids::add);
    }
    client.execute(Call.setup(YtCommand.SET, p, proxy).asMutation());
  }

  /**
   * Creates a sorted dynamic table (parents included) unless a node exists there.
   *
   * @param path the Cypress path
   * @param schema the YTsaurus schema
   * @param attributes extra attributes (e.g. {@value YtSchemas#ATTRIBUTES_ATTRIBUTE})
   * @return whether this call created it
   */
  public boolean createDynamicTable(String path, ArrayNode schema, ObjectNode attributes) {
    ObjectNode attrs = attributes.deepCopy();
    attrs.put("dynamic", true);
    attrs.set("schema", schema);
    ObjectNode p = YtJson.object().put("path", path).put("type", "table").put("recursive", true);
    p.set("attributes", attrs);
    try {
      client.execute(Call.setup(YtCommand.CREATE, p, proxy).asMutation());
      LOG.info("created sorted dynamic table {}", path);
      return true;
    } catch (YtException e) {
      if (e.hasCode(YtError.ALREADY_EXISTS)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Reshards an unmounted table into {@code tabletCount} tablets with uniform pivots over its first (uint64) key
   * column.
   *
   * @param path the table
   * @param tabletCount the tablet count
   */
  public void reshardUniform(String path, int tabletCount) {
    ObjectNode p = YtJson.object().put("path", path).put("tablet_count", tabletCount).put("uniform", true);
    client.execute(Call.setup(YtCommand.RESHARD_TABLE, p, proxy).asMutation());
    LOG.info("resharded {} into {} uniform tablets", path, tabletCount);
  }

  /**
   * Mounts a table unless it is mounted, then polls {@code @tablet_state} until {@code mounted}.
   *
   * @param path the table
   * @throws StoreException if it is frozen or does not become mounted within the mount timeout
   */
  public void mountAndWait(String path) {
    String state = get(path + "/@tablet_state").map(JsonNode::asText).orElse("unknown");
    if (state.equals("mounted")) {
      return;
    }
    if (state.equals("unmounted")) {
      client.execute(Call.setup(YtCommand.MOUNT_TABLE, YtJson.object().put("path", path), proxy).asMutation());
      LOG.info("mounting {}", path);
    } else if (state.startsWith("frozen") || state.equals("freezing")) {
      throw new StoreException("table " + path + " is " + state + "; unfreeze it before Epochal writes to it");
    }
    long deadline = System.nanoTime() + mountTimeout.toNanos();
    long sleepMs = 20;
    while (true) {
      state = get(path + "/@tablet_state").map(JsonNode::asText).orElse("unknown");
      if (state.equals("mounted")) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new StoreException("table " + path + " did not become mounted within " + mountTimeout
            + " (tablet_state " + state + "); is a tablet cell bundle with healthy cells available?");
      }
      try {
        Thread.sleep(sleepMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for " + path + " to mount", e);
      }
      sleepMs = Math.min(500, sleepMs * 2);
    }
  }
}
