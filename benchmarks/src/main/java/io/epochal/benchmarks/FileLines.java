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
   * {@code '\n'}) to {@code out}. An unterminated last line is never read.
   *
   * @param file the file to read, UTF-8
   * @param from the byte offset to start at, the start of a line (0 or an offset returned by an earlier call)
   * @param maxLines the most lines to read
   * @param out receives each line, in file order
   * @throws UncheckedIOException if the file cannot be read
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
   * Skips up to {@code maxLines} complete lines starting at byte {@code from}, without decoding them.
   *
   * @param file the file to read
   * @param from the byte offset to start at, the start of a line
   * @param maxLines the most lines to skip
   * @return the byte offset after the last line skipped ({@code from} if none)
   * @throws UncheckedIOException if the file cannot be read
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

  /**
   * The size of a file, read anew on each call (the spouts' test for more input).
   *
   * @param file the file
   * @return the file's length in bytes
   * @throws UncheckedIOException if the size cannot be read
   */
  public static long length(Path file) {
    try {
      return java.nio.file.Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
