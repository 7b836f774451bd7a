package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.store.ytsaurus.YtCommitOutcomeUnknownException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Response;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Settings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of {@link YtHttpClient}: one attempt of a call on {@link HttpClient} (the request as the wire rules of
 * the client's comment say, the answer's {@code X-YT-Proxy} checked against the pinned proxy, the outcome classified
 * as success, retryable or final failure by phase) and the {@code GET /hosts} of proxy discovery. Retries are the
 * client's. Thread-safe: one instance serves all threads; it holds no per-call state.
 */
final class YtTransport {
  /** Logs under the client's name: the transport is part of it. */
  private static final Logger LOG = LoggerFactory.getLogger(YtHttpClient.class);

  private static final int MAX_PLAIN_HEADER = 6000;
  private static final int HEADER_PART = 4000;

  /** The outcome of one attempt: the answer, or the failure and whether a retry may succeed. */
  record Attempt(Response response, RuntimeException failure, boolean retryable) {
  }

  private final Settings settings;
  private final HttpClient http;
  private final AtomicBoolean warnedNoProxyHeader = new AtomicBoolean();

  YtTransport(Settings settings) {
    this.settings = settings;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(settings.connectTimeout())
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  Attempt attemptOnce(Call call, ObjectNode params, byte[] input, String correlationId) {
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
    YtError error = YtErrors.extractError(response);
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
      RuntimeException failure = YtErrors.toException(call, correlationId, status, error);
      return new Attempt(null, failure, call.phase() != Phase.COMMIT && YtErrors.isRetryable(error));
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

  /**
   * {@code GET /hosts} on {@code proxy} (a JSON array, best first).
   *
   * @return the heavy proxies it lists, best first; empty if it failed or did not answer with a JSON array
   */
  List<String> hosts(String proxy) {
    List<String> hosts = new ArrayList<>();
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(YtHttpClient.baseUri(proxy).resolve("/hosts"))
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
    return hosts;
  }

  private static URI apiUri(String proxy, String command) {
    return YtHttpClient.baseUri(proxy).resolve("/api/v4/" + command);
  }

  private static String abbreviate(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8);
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
