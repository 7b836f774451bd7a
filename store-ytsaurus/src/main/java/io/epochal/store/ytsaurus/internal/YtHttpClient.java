package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.pipeline.Sleeper;
import io.epochal.store.ytsaurus.YtCommitOutcomeUnknownException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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
 * {@code '='}) and searched recursively through {@code inner_errors}; see {@link YtErrors#toException}. Retries with
 * exponential backoff and jitter happen only for retryable codes and only in {@link Phase#SETUP} and
 * {@link Phase#IN_TRANSACTION} (before commit, on the same proxy); a commit is never retried.
 *
 * <p>Thread-safe: one instance serves all threads; it holds no per-call state.
 */
public final class YtHttpClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(YtHttpClient.class);

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
    /**
     * Checks arguments.
     *
     * @param command the command
     * @param parameters its parameters (the client adds {@code output_format} and, for input, {@code input_format})
     * @param input the tabular input rows, non-null exactly when {@code command} {@linkplain YtCommand#hasInput() has
     *     input}
     * @param proxy the proxy ({@code host:port} or a URL) to send it to
     * @param phase the phase, see {@link Phase}
     * @param expectedProxy the {@code X-YT-Proxy} value every answer must carry, or {@code null} to accept any
     * @param mutating whether to add {@code mutation_id}/{@code retry}
     * @throws NullPointerException if {@code command}, {@code parameters}, {@code proxy} or {@code phase} is null
     * @throws IllegalArgumentException if {@code input} is given for a command without input, or missing for one
     *     with input
     */
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

    /**
     * A copy of this call marked as a mutation.
     *
     * @return this call with {@code mutation_id}/{@code retry} added
     */
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
     * Parses the body.
     *
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
    /**
     * Checks values.
     *
     * @param token the OAuth token, empty for none (local clusters)
     * @param connectTimeout TCP connect timeout
     * @param requestTimeout timeout of one HTTP exchange
     * @param maxAttempts attempts per call, {@code >= 1} (1 = no retry)
     * @param initialBackoff first backoff; doubles per retry, with full jitter
     * @param maxBackoff backoff cap
     * @param sleeper how to wait between attempts (tests inject a virtual one)
     * @throws NullPointerException if {@code token} or {@code sleeper} is null
     * @throws IllegalArgumentException if {@code maxAttempts < 1}
     */
    public Settings {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(sleeper, "sleeper");
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
      }
    }

    /**
     * The default settings.
     *
     * @return defaults: no token, 5 s connect, 60 s request, 5 attempts, 50 ms..2 s backoff
     */
    public static Settings defaults() {
      return new Settings(Optional.empty(), Duration.ofSeconds(5), Duration.ofSeconds(60), 5, Duration.ofMillis(50),
          Duration.ofSeconds(2), Sleeper.system());
    }
  }

  private final Settings settings;
  private final YtTransport transport;

  /**
   * Makes the client.
   *
   * @param settings the settings
   */
  public YtHttpClient(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.transport = new YtTransport(settings);
  }

  /**
   * The client's settings.
   *
   * @return the settings
   */
  public Settings settings() {
    return settings;
  }

  /**
   * Runs a call, retrying as its {@link Phase} allows.
   *
   * @param call the call
   * @return the successful answer
   * @throws YtException (or a subtype), {@link CommitConflictException} or {@link LeaseLostException} as mapped by
   *     {@link YtErrors#toException}
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
      YtTransport.Attempt result = transport.attemptOnce(call, params, input, correlationId);
      if (result.response() != null) {
        return result.response();
      }
      RuntimeException failure = result.failure();
      if (!result.retryable() || attempt >= maxAttempts) {
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
      throw YtErrors.failure(call, response.correlationId(), response.status(), null, e.getMessage(), e.getCause());
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
      throw YtErrors.failure(call, response.correlationId(), response.status(), null,
          "answer is not tabular JSON: " + e.getMessage(), e);
    }
    if (body.error() != null) {
      throw YtErrors.toException(call, response.correlationId(), response.status(), body.error());
    }
    return body.rows();
  }

  /**
   * Tells whether an error is worth retrying.
   *
   * @param error an error tree
   * @return whether retrying the same call may succeed: some code in the tree is retryable and none is final
   */
  public static boolean isRetryable(YtError error) {
    return YtErrors.isRetryable(error);
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
    List<String> hosts = transport.hosts(proxy);
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
   * Turns a proxy address into the base URI of its requests.
   *
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

  /**
   * Makes a random id in YTsaurus' GUID format.
   *
   * @return a YTsaurus-style GUID: four 32-bit hex parts joined by '-'
   */
  public static String newGuid() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return Integer.toHexString(r.nextInt()) + "-" + Integer.toHexString(r.nextInt()) + "-"
        + Integer.toHexString(r.nextInt()) + "-" + Integer.toHexString(r.nextInt());
  }

  /** Releases nothing today ({@link HttpClient} of Java 17 is not closeable); present for future transports. */
  @Override
  public void close() {
  }
}
