package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CLI's stdout for tests of {@code --metrics-port}: scrapes the endpoint over real HTTP (on the CLI's own thread,
 * so the run waits) when the endpoint line is printed, before any batch, at the first progress line (between two
 * batches), and when the verdict is printed, after the last batch and before the endpoint closes. Not thread-safe (one CLI run writes it).
 */
final class ScrapingOut extends OutputStream {
  private static final Pattern ENDPOINT = Pattern.compile("^metrics: (http://localhost:[0-9]+/metrics) ");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final ByteArrayOutputStream all = new ByteArrayOutputStream();
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  String url;
  HttpResponse<String> atStart;
  /** The scrape at the first progress line, and that line (the run waits: its committed records are exact). */
  HttpResponse<String> atProgress;
  String progressLine;
  HttpResponse<String> atEnd;

  @Override
  public void write(int b) {
    all.write(b);
    if (b != '\n') {
      line.write(b);
      return;
    }
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    Matcher m = ENDPOINT.matcher(text);
    if (m.find()) {
      url = m.group(1);
      atStart = get(url);
    } else if (text.startsWith("  ... ") && atProgress == null && url != null) {
      progressLine = text;
      atProgress = get(url);
    } else if (text.startsWith("counts verified")) {
      atEnd = get(url);
    }
  }

  /** A GET of {@code url}; an unreachable endpoint is an {@link UncheckedIOException}. */
  static HttpResponse<String> get(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The sum of the samples of {@code name} whose labels include {@code labels}; fails if there is none. */
  static double value(String scrape, String name, Map<String, String> labels) {
    double sum = 0;
    boolean found = false;
    for (String text : scrape.split("\n")) {
      Matcher m = SAMPLE.matcher(text);
      if (text.startsWith("#") || !m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      Map<String, String> have = new HashMap<>();
      Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
      while (l.find()) {
        have.put(l.group(1), l.group(2));
      }
      if (have.entrySet().containsAll(labels.entrySet())) {
        sum += Double.parseDouble(m.group(3));
        found = true;
      }
    }
    assertTrue(found, () -> name + labels + " in the scrape:\n" + scrape);
    return sum;
  }
}
