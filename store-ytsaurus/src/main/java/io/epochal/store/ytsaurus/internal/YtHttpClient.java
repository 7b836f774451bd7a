package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.pipeline.Sleeper;
import io.epochal.store.ytsaurus.YtCommitOutcomeUnknownException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTabletNotMountedException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal client of the YTsaurus HTTP proxy, API v4 only, on {@link java.net.http.HttpClient}.
 *
 * <p>Wire rules (research note §1): {@code /api/v4/<command>}; a command with tabular input is a {@code PUT} whose
 * parameters are in {@code X-YT-Parameters} (JSON; split into base64 parts {@code X-YT-Parameters0..N} when long);
 * a mutating command without input is a {@code POST} whose parameters are the JSON body; a read command is a
 * {@code GET} with its parameters in {@code X-YT-Parameters}. Rows use {@link YtJson#rowFormat()}. Every request
 * carries {@code X-YT-Correlation-Id} (one id per logical call, kept across retries) and, if a token is configured,
 * {@code Authorization: OAuth <token>}. Every response's {@code X-YT-Proxy} is read; inside a pinned transaction it
 * must equal the proxy that started the transaction.
 *
 * <p>Errors are read from {@code X-YT-Error} (else from the body, else from an error dumped after a line of 80
 * {@code '='}) and searched recursively through {@code inner_errors}; see {@link #toException}. Retries with
 * exponential backoff and jitter happen only for retryable codes and only in {@link Phase#SETUP} and
 * {@link Phase#IN_TRANSACTION} (before commit, on the same proxy); a commit is never retried.
 *
 * <p>Thread-safe: one instance serves all threads; it holds no per-call state.
 */
public final class YtHttpClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(YtHttpClient.class);

  /** Codes after which a retry of the same call (before commit) may succeed. */
  static final Set<Integer> RETRYABLE_CODES = Set.of(YtError.TRANSPORT_ERROR, YtError.NO_SUCH_SERVICE,
      YtError.UNAVAILABLE, YtError.REQUEST_QUEUE_SIZE_LIMIT_EXCEEDED, YtError.REQUEST_RATE_LIMIT_EXCEEDED,
      YtError.NO_SUCH_TABLET, YtError.TABLET_NOT_MOUNTED, YtError.INVALID_MOUNT_REVISION, YtError.ROW_IS_BLOCKED,
      YtError.BLOCKED_ROW_WAIT_TIMEOUT, YtError.NO_SUCH_CELL, YtError.CHUNK_IS_NOT_PRELOADED, YtError.TIMEOUT);

  /** Codes that make a call fail for good, whatever else the tree contains. */
  static final Set<Integer> FINAL_CODES = Set.of(YtError.PREREQUISITE_CHECK_FAILED,
      YtError.TRANSACTION_LOCK_CONFLICT, YtError.NO_SUCH_TRANSACTION, YtError.INVALID_TRANSACTION_STATE,
      YtError.AUTHORIZATION_ERROR, YtError.RESOLVE_ERROR, YtError.ALREADY_EXISTS,
      YtError.CONCURRENT_TRANSACTION_LOCK_CONFLICT);

  private static final int MAX_PLAIN_HEADER = 6000;
  private static final int HEADER_PART = 4000;

  /** Where in an epoch a call happens; decides retries and how a failure is reported. */
  public enum Phase {
    /**
     * Outside any tablet transaction (setup, lease, master transactions, single-request reads). Retryable codes,
     * HTTP 503/429 and transport failures are retried with backoff.
     */
    SETUP,
    /**
     * Inside a pinned tablet transaction, before commit. Retryable codes are retried on the same proxy; a transport
     * failure or an answer from another proxy is {@link YtTransactionLostException} (the proxy's sticky pool is
     * unreachable, so the transaction is lost).
     */
    IN_TRANSACTION,
    /**
     * The commit itself ({@code commit_transaction}, or the one {@code insert_rows} of the single-table mode). Never
     * retried; a failure without a YTsaurus error is {@link YtCommitOutcomeUnknownException}.
     */
    COMMIT
  }

  /**
   * One logical call.
   *
   * @param command the command
   * @param parameters its parameters (the client adds {@code output_format} and, for input, {@code input_format})
   * @param input the tabular input rows, or {@code null} for a command without input
   * @param proxy the proxy ({@code host:port} or a URL) to send it to
   * @param phase the phase, see {@link Phase}
   * @param expectedProxy the {@code X-YT-Proxy} value every answer must carry (the proxy holding the pinned
   *     transaction), or {@code null} to accept any
   * @param mutating whether to add {@code mutation_id}/{@code retry} (master mutations, so retries are idempotent)
   */
  public record Call(YtCommand command, ObjectNode parameters, List<? extends JsonNode> input, String proxy,
      Phase phase, String expectedProxy, boolean mutating) {
    /** Checks arguments. */
    public Call {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(parameters, "parameters");
      Objects.requireNonNull(proxy, "proxy");
      Objects.requireNonNull(phase, "phase");
      if (command.hasInput() != (input != null)) {
        throw new IllegalArgumentException(command.wireName() + (command.hasInput() ? " needs" : " takes no")
            + " input rows");
      }
    }

    /**
     * A setup-phase call of a command without input.
     *
     * @param command the command
     * @param parameters the parameters
     * @param proxy the proxy
     * @return the call
     */
    public static Call setup(YtCommand command, ObjectNode parameters, String proxy) {
      return new Call(command, parameters, null, proxy, Phase.SETUP, null, false);
    }

    /** @return this call with {@code mutation_id}/{@code retry} added */
    public Call asMutation() {
      return new Call(command, parameters, input, proxy, phase, expectedProxy, true);
    }
  }

  /**
   * A successful answer.
   *
   * @param status the HTTP status (2xx)
   * @param servedBy the {@code X-YT-Proxy} header, or {@code null} if absent
   * @param requestId the {@code X-YT-Request-Id} header, or {@code null}
   * @param correlationId the correlation id that was sent
   * @param body the body
   */
  public record Response(int status, String servedBy, String requestId, String correlationId, byte[] body) {
    /**
     * @return the body as a JSON tree ({@code {}} for an empty body)
     * @throws IllegalStateException if it is not JSON
     */
    public JsonNode json() {
      if (body.length == 0) {
        return YtJson.object();
      }
      try {
        return YtJson.read(body);
      } catch (IOException e) {
        throw new IllegalStateException("answer is not JSON: " + new String(body, StandardCharsets.UTF_8), e);
      }
    }
  }

  /**
   * Client settings.
   *
   * @param token the OAuth token, empty for none (local clusters)
   * @param connectTimeout TCP connect timeout
   * @param requestTimeout timeout of one HTTP exchange
   * @param maxAttempts attempts per call (1 = no retry)
   * @param initialBackoff first backoff; doubles per retry, with full jitter
   * @param maxBackoff backoff cap
   * @param sleeper how to wait between attempts (tests inject a virtual one)
   */
  public record Settings(Optional<String> token, Duration connectTimeout, Duration requestTimeout, int maxAttempts,
      Duration initialBackoff, Duration maxBackoff, Sleeper sleeper) {
    /** Checks values. */
    public Settings {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(sleeper, "sleeper");
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
      }
    }

    /** @return defaults: no token, 5 s connect, 60 s request, 5 attempts, 50 ms..2 s backoff */
    public static Settings defaults() {
      return new Settings(Optional.empty(), Duration.ofSeconds(5), Duration.ofSeconds(60), 5, Duration.ofMillis(50),
          Duration.ofSeconds(2), Sleeper.system());
    }
  }

  private final Settings settings;
  private final HttpClient http;
  private final AtomicBoolean warnedNoProxyHeader = new AtomicBoolean();

  /**
   * @param settings the settings
   */
  public YtHttpClient(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(settings.connectTimeout())
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  /** @return the settings */
  public Settings settings() {
    return settings;
  }

  /**
   * Runs a call, retrying as its {@link Phase} allows.
   *
   * @param call the call
   * @return the successful answer
   * @throws YtException (or a subtype), {@link CommitConflictException} or {@link LeaseLostException} as mapped by
   *     {@link #toException}
   */
  public Response execute(Call call) {
    String correlationId = UUID.randomUUID().toString();
    String mutationId = call.mutating() ? newGuid() : null;
    ObjectNode params = call.parameters().deepCopy();
    params.set("output_format", YtJson.rowFormat());
    if (call.command().hasInput()) {
      params.set("input_format", YtJson.rowFormat());
    }
    byte[] input = call.input() == null ? null : YtJson.writeRows(call.input());
    int maxAttempts = call.phase() == Phase.COMMIT ? 1 : settings.maxAttempts();
    for (int attempt = 1; ; attempt++) {
      if (mutationId != null) {
        params.put("mutation_id", mutationId);
        params.put("retry", attempt > 1);
      }
      Attempt result = attemptOnce(call, params, input, correlationId);
      if (result.response != null) {
        return result.response;
      }
      RuntimeException failure = result.failure;
      if (!result.retryable || attempt >= maxAttempts) {
        throw failure;
      }
      Duration backoff = backoff(attempt);
      LOG.warn("YTsaurus {} on {} failed (attempt {}/{}), retrying in {} ms: {}", call.command().wireName(),
          call.proxy(), attempt, maxAttempts, backoff.toMillis(), failure.getMessage());
      try {
        settings.sleeper().sleep(backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure.addSuppressed(e);
        throw failure;
      }
    }
  }

  /**
   * Runs a call and parses its answer as one JSON document.
   *
   * @param call the call
   * @return the answer
   * @throws YtException (retryable: damaged in transit) if the answer is not JSON
   */
  public JsonNode json(Call call) {
    return parse(call, execute(call));
  }

  /**
   * Parses the answer of {@code call} as one JSON document ({@code {}} for an empty body).
   *
   * @param call the call that was answered
   * @param response its answer
   * @return the document
   * @throws YtException (retryable: damaged in transit) if the answer is not JSON
   */
  public JsonNode parse(Call call, Response response) {
    try {
      return response.json();
    } catch (IllegalStateException e) {
      throw failure(call, response.correlationId(), response.status(), null, e.getMessage(), e.getCause());
    }
  }

  /**
   * Runs a call with tabular output and parses its rows; an error dumped into the body is thrown.
   *
   * @param call the call
   * @return the rows, a JSON {@code null} node for each missing row of {@code keep_missing_rows}
   */
  public List<JsonNode> rows(Call call) {
    Response response = execute(call);
    YtJson.TabularBody body;
    try {
      body = YtJson.readRows(response.body());
    } catch (IOException e) {
      throw failure(call, response.correlationId(), response.status(), null,
          "answer is not tabular JSON: " + e.getMessage(), e);
    }
    if (body.error() != null) {
      throw toException(call, response.correlationId(), response.status(), body.error());
    }
    return body.rows();
  }

  private record Attempt(Response response, RuntimeException failure, boolean retryable) {
  }

  private Attempt attemptOnce(Call call, ObjectNode params, byte[] input, String correlationId) {
    HttpRequest request = buildRequest(call, params, input, correlationId);
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      return transportFailure(call, correlationId, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      RuntimeException failure = call.phase() == Phase.COMMIT
          ? new YtCommitOutcomeUnknownException("interrupted while waiting for the commit answer",
              call.command().wireName(), call.proxy(), correlationId, 0, e)
          : new YtException("interrupted", call.command().wireName(), call.proxy(), correlationId, 0, null, e);
      return new Attempt(null, failure, false);
    }
    int status = response.statusCode();
    String servedBy = response.headers().firstValue("X-YT-Proxy").orElse(null);
    String requestId = response.headers().firstValue("X-YT-Request-Id").orElse(null);
    YtError error = extractError(response);
    LOG.debug("YTsaurus {} {} -> HTTP {} served by {} (request id {}, correlation id {})",
        call.command().wireName(), call.proxy(), status, servedBy, requestId, correlationId);

    if (servedBy == null && warnedNoProxyHeader.compareAndSet(false, true)) {
      LOG.warn("YTsaurus proxy {} sent no X-YT-Proxy header; pinned transactions cannot verify which proxy served "
          + "them", call.proxy());
    }
    if (call.expectedProxy() != null && servedBy != null && !servedBy.equals(call.expectedProxy())
        && !(call.phase() == Phase.COMMIT && error == null && status / 100 == 2)) {
      String message = "the request was served by proxy " + servedBy + " but the tablet transaction lives on "
          + call.expectedProxy() + " (a load balancer or redirect is between the client and the pinned proxy); "
          + "the epoch did not commit";
      return new Attempt(null, new YtTransactionLostException(message, call.command().wireName(), call.proxy(),
          correlationId, status, error, null), false);
    }
    if (error != null) {
      RuntimeException failure = toException(call, correlationId, status, error);
      return new Attempt(null, failure, call.phase() != Phase.COMMIT && isRetryable(error));
    }
    if (status / 100 != 2) {
      boolean retryable = call.phase() != Phase.COMMIT && (status == 503 || status == 429
          || (call.phase() == Phase.SETUP && status >= 500));
      String detail = status == 307 || status == 308
          ? "proxy " + call.proxy() + " redirected to " + response.headers().firstValue("Location").orElse("?")
              + " (a control proxy: send heavy commands to a heavy proxy from /hosts)"
          : "HTTP " + status + " without a YTsaurus error: " + abbreviate(response.body());
      RuntimeException failure = call.phase() == Phase.COMMIT
          ? new YtCommitOutcomeUnknownException(detail, call.command().wireName(), call.proxy(), correlationId,
              status, null)
          : new YtException(detail, call.command().wireName(), call.proxy(), correlationId, status, null, null);
      return new Attempt(null, failure, retryable);
    }
    return new Attempt(new Response(status, servedBy, requestId, correlationId, response.body()), null, false);
  }

  private Attempt transportFailure(Call call, String correlationId, IOException e) {
    String command = call.command().wireName();
    switch (call.phase()) {
      case COMMIT:
        return new Attempt(null, new YtCommitOutcomeUnknownException("no answer to the commit: " + e,
            command, call.proxy(), correlationId, 0, e), false);
      case IN_TRANSACTION:
        return new Attempt(null, new YtTransactionLostException("the pinned proxy is unreachable (" + e
            + "); its sticky tablet transaction is lost and the epoch did not commit", command, call.proxy(),
            correlationId, 0, null, e), false);
      default:
        return new Attempt(null, new YtException("transport failure: " + e, command, call.proxy(), correlationId,
            0, null, e), true);
    }
  }

  private HttpRequest buildRequest(Call call, ObjectNode params, byte[] input, String correlationId) {
    HttpRequest.Builder b = HttpRequest.newBuilder(apiUri(call.proxy(), call.command().wireName()))
        .timeout(settings.requestTimeout())
        .header("X-YT-Correlation-Id", correlationId)
        .header("X-YT-Header-Format", "json")
        .header("Accept", "application/json");
    settings.token().ifPresent(t -> b.header("Authorization", "OAuth " + t));
    String paramsJson = YtJson.write(params);
    switch (call.command().method()) {
      case PUT:
        putParametersHeader(b, paramsJson);
        b.header("Content-Type", "application/json");
        b.PUT(HttpRequest.BodyPublishers.ofByteArray(input));
        break;
      case POST:
        b.header("Content-Type", "application/json");
        b.POST(HttpRequest.BodyPublishers.ofString(paramsJson, StandardCharsets.UTF_8));
        break;
      default:
        putParametersHeader(b, paramsJson);
        b.GET();
        break;
    }
    return b.build();
  }

  /**
   * Puts the parameters into {@code X-YT-Parameters}; a long value is base64-encoded and split into
   * {@code X-YT-Parameters0}, {@code X-YT-Parameters1}, ... (the proxy concatenates and decodes the parts).
   */
  static void putParametersHeader(HttpRequest.Builder b, String json) {
    if (json.length() <= MAX_PLAIN_HEADER) {
      b.header("X-YT-Parameters", json);
      return;
    }
    String encoded = Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    for (int i = 0, part = 0; i < encoded.length(); i += HEADER_PART, part++) {
      b.header("X-YT-Parameters" + part, encoded.substring(i, Math.min(encoded.length(), i + HEADER_PART)));
    }
  }

  private static YtError extractError(HttpResponse<byte[]> response) {
    Optional<String> header = response.headers().firstValue("X-YT-Error");
    if (header.isPresent()) {
      try {
        return YtJson.parseError(YtJson.read(header.get()));
      } catch (IOException | RuntimeException e) {
        int code = response.headers().firstValue("X-YT-Response-Code").map(YtHttpClient::parseIntOr1).orElse(1);
        return YtError.of(code, response.headers().firstValue("X-YT-Response-Message").orElse(header.get()));
      }
    }
    if (response.statusCode() / 100 != 2 && response.body().length > 0) {
      try {
        JsonNode body = YtJson.read(response.body());
        if (body.isObject() && body.has("code") && body.has("message")) {
          return YtJson.parseError(body);
        }
      } catch (IOException | RuntimeException e) {
        // not an error document
      }
    }
    Optional<String> code = response.headers().firstValue("X-YT-Response-Code");
    if (code.isPresent() && parseIntOr1(code.get()) != 0) {
      return YtError.of(parseIntOr1(code.get()),
          response.headers().firstValue("X-YT-Response-Message").orElse("(no message)"));
    }
    return null;
  }

  private static int parseIntOr1(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /**
   * @param error an error tree
   * @return whether retrying the same call may succeed: some code in the tree is retryable and none is final
   */
  public static boolean isRetryable(YtError error) {
    List<Integer> codes = error.allCodes();
    return codes.stream().noneMatch(FINAL_CODES::contains) && codes.stream().anyMatch(RETRYABLE_CODES::contains);
  }

  /**
   * Maps an error tree to the exception the store throws, by the first of these codes found anywhere in the tree:
   * 1000 (prerequisite check failed) → {@link LeaseLostException}; 1700 (row lock conflict) →
   * {@link CommitConflictException}; 11000 (no such / lost sticky transaction) → {@link YtTransactionLostException};
   * 1702 (tablet not mounted) → {@link YtTabletNotMountedException}; anything else → {@link YtException}. The
   * first two carry a {@link YtException} as their cause. 1000 wins over 11000 because a failed prerequisite names
   * the missing lease transaction with an inner 11000.
   *
   * @param call the call
   * @param correlationId its correlation id
   * @param status the HTTP status
   * @param error the error
   * @return the exception to throw
   */
  static RuntimeException toException(Call call, String correlationId, int status, YtError error) {
    String command = call.command().wireName();
    String proxy = call.proxy();
    if (error.contains(YtError.PREREQUISITE_CHECK_FAILED)) {
      YtException cause = new YtException("prerequisite check failed", command, proxy, correlationId, status,
          error, null);
      LeaseLostException e = new LeaseLostException("YTsaurus refused " + command + ": the lease (prerequisite "
          + "master transaction) is gone, so this writer is fenced off and nothing was committed: " + error);
      e.initCause(cause);
      return e;
    }
    if (error.contains(YtError.TRANSACTION_LOCK_CONFLICT)) {
      YtException cause = new YtException("row lock conflict", command, proxy, correlationId, status, error, null);
      CommitConflictException e = new CommitConflictException("YTsaurus " + command + " failed with a row lock "
          + "conflict (1700): an overlapping transaction wrote the same row first; nothing was committed: "
          + error.find(YtError.TRANSACTION_LOCK_CONFLICT).map(YtError::message).orElse(""));
      e.initCause(cause);
      return e;
    }
    if (error.contains(YtError.NO_SUCH_TRANSACTION)) {
      return new YtTransactionLostException("the transaction is unknown to the proxy (11000: expired, aborted, or "
          + "a sticky tablet transaction used through another proxy); nothing was committed", command, proxy,
          correlationId, status, error, null);
    }
    if (error.contains(YtError.TABLET_NOT_MOUNTED)) {
      return new YtTabletNotMountedException("tablet not mounted", command, proxy, correlationId, status, error);
    }
    return new YtException(command + " failed", command, proxy, correlationId, status, error, null);
  }

  private static YtException failure(Call call, String correlationId, int status, YtError error, String message,
      Throwable cause) {
    return new YtException(message, call.command().wireName(), call.proxy(), correlationId, status, error, cause);
  }

  private Duration backoff(int attempt) {
    long base = settings.initialBackoff().toMillis() << Math.min(attempt - 1, 20);
    long cap = Math.min(base, settings.maxBackoff().toMillis());
    return Duration.ofMillis(cap <= 0 ? 0 : ThreadLocalRandom.current().nextLong(cap / 2, cap + 1));
  }

  /**
   * Heavy-proxy discovery: {@code GET /hosts} (a JSON array, best first); if that fails or is empty,
   * {@code GET /api/v4/discover_proxies?type=http} ({@code {"proxies":[...]}}).
   *
   * @param proxy the entry proxy (a balancer or any proxy)
   * @return the heavy proxies, best first; empty if neither endpoint answered with a non-empty list
   */
  public List<String> discoverHeavyProxies(String proxy) {
    List<String> hosts = new ArrayList<>();
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(baseUri(proxy).resolve("/hosts"))
          .timeout(settings.requestTimeout())
          .header("X-YT-Correlation-Id", UUID.randomUUID().toString())
          .header("Accept", "application/json");
      settings.token().ifPresent(t -> b.header("Authorization", "OAuth " + t));
      HttpResponse<byte[]> response = http.send(b.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 200) {
        JsonNode list = YtJson.read(response.body());
        if (list.isArray()) {
          list.forEach(h -> hosts.add(h.asText()));
        }
      }
    } catch (IOException e) {
      LOG.debug("GET /hosts on {} failed: {}", proxy, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new YtException("interrupted", "hosts", proxy, "-", 0, null, e);
    }
    if (!hosts.isEmpty()) {
      return hosts;
    }
    try {
      ObjectNode params = YtJson.object().put("type", "http");
      JsonNode answer = json(Call.setup(YtCommand.DISCOVER_PROXIES, params, proxy));
      answer.path("proxies").forEach(h -> hosts.add(h.asText()));
    } catch (YtException e) {
      LOG.debug("discover_proxies on {} failed: {}", proxy, e.getMessage());
    }
    return hosts;
  }

  /**
   * @param proxy {@code host}, {@code host:port} or a URL
   * @return the base URI ({@code http://host:port} unless a scheme was given)
   */
  public static URI baseUri(String proxy) {
    String p = proxy.trim();
    if (!p.startsWith("http://") && !p.startsWith("https://")) {
      p = "http://" + p;
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return URI.create(p + "/");
  }

  private static URI apiUri(String proxy, String command) {
    return baseUri(proxy).resolve("/api/v4/" + command);
  }

  /** @return a YTsaurus-style GUID: four 32-bit hex parts joined by '-' */
  public static String newGuid() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return Integer.toHexString(r.nextInt()) + "-" + Integer.toHexString(r.nextInt()) + "-"
        + Integer.toHexString(r.nextInt()) + "-" + Integer.toHexString(r.nextInt());
  }

  private static String abbreviate(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8);
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  /** Releases nothing today ({@link HttpClient} of Java 17 is not closeable); present for future transports. */
  @Override
  public void close() {
  }
}
