package io.epochal.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

/** Positional reads of whole lines of a file, shared by the opaque spouts of Epochal and Storm. */
public final class FileLines {
  private FileLines() {
  }

  /**
   * Reads up to {@code maxLines} complete lines starting at byte {@code from}, handing each (without its
   * {@code '\n'}) to {@code out}.
   *
   * @return the byte offset after the last line read ({@code from} if none)
   */
  public static long read(Path file, long from, int maxLines, Consumer<String> out) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      long pos = from;
      int lines = 0;
      while (lines < maxLines) {
        buf.clear();
        int n = ch.read(buf, pos);
        if (n <= 0) {
          break;
        }
        byte[] a = buf.array();
        int start = 0;
        int i = 0;
        for (; i < n && lines < maxLines; i++) {
          if (a[i] == '\n') {
            out.accept(new String(a, start, i - start, StandardCharsets.UTF_8));
            lines++;
            start = i + 1;
          }
        }
        if (start == 0) {
          break; // no complete line in a whole buffer: the rest is an unterminated line
        }
        pos += start;
      }
      return pos;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " at " + from, e);
    }
  }

  /**
   * Skips up to {@code maxLines} complete lines starting at byte {@code from}.
   *
   * @return the byte offset after the last line skipped
   */
  public static long skip(Path file, long from, int maxLines) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      long pos = from;
      long end = from;
      int lines = 0;
      while (lines < maxLines) {
        buf.clear();
        int n = ch.read(buf, pos);
        if (n <= 0) {
          break;
        }
        byte[] a = buf.array();
        for (int i = 0; i < n && lines < maxLines; i++) {
          if (a[i] == '\n') {
            lines++;
            end = pos + i + 1;
          }
        }
        pos += n;
      }
      return end;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " at " + from, e);
    }
  }

  /** @return the file's length */
  public static long length(Path file) {
    try {
      return java.nio.file.Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
