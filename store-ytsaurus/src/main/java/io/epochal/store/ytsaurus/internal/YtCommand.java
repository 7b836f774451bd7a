package io.epochal.store.ytsaurus.internal;

/**
 * The API v4 commands this client uses, with the HTTP method the proxy expects (research note §1.1): a command with
 * an input stream is sent as {@code PUT} with its parameters in {@code X-YT-Parameters}; a mutating command without
 * input as {@code POST} with its parameters as a JSON body; any other command as {@code GET} with its parameters in
 * {@code X-YT-Parameters} (a GET has no body).
 */
public enum YtCommand {
  // tabular input
  /** Writes rows of a dynamic table (an upsert by key in a sorted one). */
  INSERT_ROWS("insert_rows", Method.PUT, true),
  /** Deletes rows of a sorted dynamic table by key. */
  DELETE_ROWS("delete_rows", Method.PUT, true),
  /** Reads rows of a sorted dynamic table by key. */
  LOOKUP_ROWS("lookup_rows", Method.PUT, true),
  // mutating, no input
  /** Starts a master or tablet transaction. */
  START_TRANSACTION("start_transaction", Method.POST, false),
  /** Keeps a transaction alive past its timeout. */
  PING_TRANSACTION("ping_transaction", Method.POST, false),
  /** Commits a transaction. */
  COMMIT_TRANSACTION("commit_transaction", Method.POST, false),
  /** Aborts a transaction. */
  ABORT_TRANSACTION("abort_transaction", Method.POST, false),
  /** Creates a Cypress node (a table, a map node, a queue consumer). */
  CREATE("create", Method.POST, false),
  /** Sets a Cypress node or attribute. */
  SET("set", Method.POST, false),
  /** Removes a Cypress node. */
  REMOVE("remove", Method.POST, false),
  /** Takes a lock on a Cypress node within a master transaction. */
  LOCK("lock", Method.POST, false),
  /** Mounts a dynamic table's tablets. */
  MOUNT_TABLE("mount_table", Method.POST, false),
  /** Unmounts a dynamic table's tablets. */
  UNMOUNT_TABLE("unmount_table", Method.POST, false),
  /** Changes a dynamic table's tablets (count or pivot keys). */
  RESHARD_TABLE("reshard_table", Method.POST, false),
  /** Moves a queue consumer's offset of one partition, checking its old offset. */
  ADVANCE_QUEUE_CONSUMER("advance_queue_consumer", Method.POST, false),
  /** Registers a consumer for a queue. */
  REGISTER_QUEUE_CONSUMER("register_queue_consumer", Method.POST, false),
  /** Deletes a queue partition's rows below an offset. */
  TRIM_ROWS("trim_rows", Method.POST, false),
  // read-only
  /** Reads a Cypress node or attribute. */
  GET("get", Method.GET, false),
  /** Tells whether a Cypress node exists. */
  EXISTS("exists", Method.GET, false),
  /** Lists a Cypress map node's children. */
  LIST("list", Method.GET, false),
  /** Runs a query over dynamic tables. */
  SELECT_ROWS("select_rows", Method.GET, false),
  /** Returns a fresh cluster timestamp. */
  GENERATE_TIMESTAMP("generate_timestamp", Method.GET, false),
  /** Reads rows of one queue partition from an offset. */
  PULL_QUEUE("pull_queue", Method.GET, false),
  /** Reads rows of one queue partition through a queue consumer (its {@code consumer_path}). */
  PULL_QUEUE_CONSUMER("pull_queue_consumer", Method.GET, false),
  /** Reads the row counts (total and trimmed) of a table's tablets. */
  GET_TABLET_INFOS("get_tablet_infos", Method.GET, false),
  /** Lists the cluster's proxies. */
  DISCOVER_PROXIES("discover_proxies", Method.GET, false);

  /** HTTP methods the proxy distinguishes. */
  public enum Method {
    /** Parameters in {@code X-YT-Parameters}, no body. */
    GET,
    /** Parameters as the JSON body. */
    POST,
    /** Parameters in {@code X-YT-Parameters}, the tabular input as the body. */
    PUT
  }

  private final String wireName;
  private final Method method;
  private final boolean hasInput;

  YtCommand(String wireName, Method method, boolean hasInput) {
    this.wireName = wireName;
    this.method = method;
    this.hasInput = hasInput;
  }

  /**
   * The command's name on the wire.
   *
   * @return the v4 command name as it appears in {@code /api/v4/<name>}
   */
  public String wireName() {
    return wireName;
  }

  /**
   * The HTTP method the proxy expects for the command.
   *
   * @return the HTTP method
   */
  public Method method() {
    return method;
  }

  /**
   * Tells whether the command sends tabular input.
   *
   * @return whether the command reads a tabular input stream (then its parameters go in a header)
   */
  public boolean hasInput() {
    return hasInput;
  }

  /**
   * Tells whether the command's parameters are sent as the request body.
   *
   * @return whether parameters travel in the JSON request body (POST without input)
   */
  public boolean parametersInBody() {
    return method == Method.POST;
  }

  /**
   * Finds a command by its v4 name.
   *
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
