package io.epochal.store.ytsaurus.internal;

/**
 * The API v4 commands this client uses, with the HTTP method the proxy expects (research note §1.1): a command with
 * an input stream is sent as {@code PUT} with its parameters in {@code X-YT-Parameters}; a mutating command without
 * input as {@code POST} with its parameters as a JSON body; any other command as {@code GET} with its parameters in
 * {@code X-YT-Parameters} (a GET has no body).
 */
public enum YtCommand {
  // tabular input
  INSERT_ROWS("insert_rows", Method.PUT, true),
  DELETE_ROWS("delete_rows", Method.PUT, true),
  LOOKUP_ROWS("lookup_rows", Method.PUT, true),
  // mutating, no input
  START_TRANSACTION("start_transaction", Method.POST, false),
  PING_TRANSACTION("ping_transaction", Method.POST, false),
  COMMIT_TRANSACTION("commit_transaction", Method.POST, false),
  ABORT_TRANSACTION("abort_transaction", Method.POST, false),
  CREATE("create", Method.POST, false),
  SET("set", Method.POST, false),
  REMOVE("remove", Method.POST, false),
  LOCK("lock", Method.POST, false),
  MOUNT_TABLE("mount_table", Method.POST, false),
  UNMOUNT_TABLE("unmount_table", Method.POST, false),
  RESHARD_TABLE("reshard_table", Method.POST, false),
  ADVANCE_QUEUE_CONSUMER("advance_queue_consumer", Method.POST, false),
  REGISTER_QUEUE_CONSUMER("register_queue_consumer", Method.POST, false),
  TRIM_ROWS("trim_rows", Method.POST, false),
  // read-only
  GET("get", Method.GET, false),
  EXISTS("exists", Method.GET, false),
  LIST("list", Method.GET, false),
  SELECT_ROWS("select_rows", Method.GET, false),
  GENERATE_TIMESTAMP("generate_timestamp", Method.GET, false),
  PULL_QUEUE("pull_queue", Method.GET, false),
  PULL_QUEUE_CONSUMER("pull_queue_consumer", Method.GET, false),
  GET_TABLET_INFOS("get_tablet_infos", Method.GET, false),
  DISCOVER_PROXIES("discover_proxies", Method.GET, false);

  /** HTTP methods the proxy distinguishes. */
  public enum Method { GET, POST, PUT }

  private final String wireName;
  private final Method method;
  private final boolean hasInput;

  YtCommand(String wireName, Method method, boolean hasInput) {
    this.wireName = wireName;
    this.method = method;
    this.hasInput = hasInput;
  }

  /** @return the v4 command name as it appears in {@code /api/v4/<name>} */
  public String wireName() {
    return wireName;
  }

  /** @return the HTTP method */
  public Method method() {
    return method;
  }

  /** @return whether the command reads a tabular input stream (then its parameters go in a header) */
  public boolean hasInput() {
    return hasInput;
  }

  /** @return whether parameters travel in the JSON request body (POST without input) */
  public boolean parametersInBody() {
    return method == Method.POST;
  }

  /**
   * @param name a v4 command name
   * @return the command, or {@code null} if this client does not use it
   */
  public static YtCommand byWireName(String name) {
    for (YtCommand c : values()) {
      if (c.wireName.equals(name)) {
        return c;
      }
    }
    return null;
  }
}
