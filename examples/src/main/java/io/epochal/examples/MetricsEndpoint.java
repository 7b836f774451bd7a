package io.epochal.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.epochal.metrics.EpochalMetrics;
import io.epochal.pipeline.PipelineListener;
import io.epochal.store.table.TableStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The CLI's {@code --metrics-port P}: a Prometheus registry and the JDK's HTTP server serving its
 * {@link PrometheusMeterRegistry#scrape() scrape} at {@code http://HOST:P/metrics} for the duration of a run. The run
 * registers its pipeline listener ({@link #listener}) and meters its table store ({@link #meter}) here. Port 0 picks
 * a free port; {@link #port()} says which.
 *
 * <p>Thread-safe: the server answers on its own thread while the run records; {@link #close()} stops the server
 * (requests in progress are dropped) and closes the registry.
 */
final class MetricsEndpoint implements AutoCloseable {
  /** The path the scrape is served at. */
  static final String PATH = "/metrics";

  private final PrometheusMeterRegistry registry;
  private final HttpServer server;

  private MetricsEndpoint(PrometheusMeterRegistry registry, HttpServer server) {
    this.registry = registry;
    this.server = server;
  }

  /**
   * Starts serving on {@code port} (0: a free one), on every interface, and prints the endpoint's address to
   * {@code out}.
   *
   * @throws UncheckedIOException naming the option if the port cannot be bound (in use, not permitted)
   */
  static MetricsEndpoint start(int port, PrintStream out) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      registry.close();
      throw new UncheckedIOException("--metrics-port " + port + ": cannot listen there (" + e.getMessage() + ")", e);
    }
    server.createContext(PATH, exchange -> serve(exchange, registry));
    server.start();
    MetricsEndpoint endpoint = new MetricsEndpoint(registry, server);
    out.printf("metrics: http://localhost:%d%s (Prometheus text format)%n", endpoint.port(), PATH);
    return endpoint;
  }

  private static void serve(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      boolean head = exchange.getRequestMethod().equals("HEAD");
      exchange.sendResponseHeaders(200, head ? -1 : body.length);
      if (!head) {
        try (OutputStream os = exchange.getResponseBody()) {
          os.write(body);
        }
      }
    }
  }

  /** @return the port the endpoint listens on */
  int port() {
    return server.getAddress().getPort();
  }

  /** @return a listener recording pipeline {@code pipeline}'s batches and failed attempts here */
  PipelineListener listener(String pipeline) {
    return EpochalMetrics.listener(registry, pipeline);
  }

  /** @return {@code store}, metered here under the tag {@code store=<name>} */
  TableStore meter(TableStore store, String name) {
    return EpochalMetrics.metered(store, registry, name);
  }

  /**
   * Serves {@code spout}'s lag per source partition ({@code epochal.source.lag}) for pipeline {@code pipeline}, read
   * afresh at every scrape (a CLI run is scraped rarely; a service would keep the default refresh).
   */
  void bindLag(String pipeline, io.epochal.spout.Spout<?, ?> spout) {
    if (!(spout instanceof io.epochal.spout.LagReporting lag)) {
      throw new IllegalArgumentException("spout '" + spout.name() + "' does not report its lag");
    }
    EpochalMetrics.bindLag(registry, pipeline, spout.name(), lag, java.time.Duration.ZERO);
  }

  @Override
  public void close() {
    server.stop(0);
    registry.close();
  }
}
