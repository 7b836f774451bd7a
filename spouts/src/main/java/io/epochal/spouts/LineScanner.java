package io.epochal.spouts;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Positional, buffered reads of {@code '\n'}-terminated lines from a file channel. Cutting needs only the fixed-size
 * buffer, whatever the line lengths; reading a range for emission also holds the current line.
 */
final class LineScanner {

  /** Receives one complete line: its offset and its bytes without the {@code '\n'} ({@code line[0, length)}). */
  interface LineSink {
    void line(long offset, byte[] line, int length);
  }

  /** {@code [start, end)} holds {@code lines} complete lines whose bytes have CRC-32 {@code crc}. */
  record Cut(long end, int lines, long crc) {
  }

  /** What reading a range found: the CRC-32 of all bytes read and the end of the last complete line. */
  record Read(long bytesRead, long lastLineEnd, long crc) {
  }

  private LineScanner() {
  }

  /**
   * Finds the end of the first at most {@code maxLines} complete lines at or after {@code start}, below
   * {@code limit} (bytes after the last {@code '\n'} found are left out), then computes the CRC-32 of
   * {@code [start, end)} in a second pass.
   */
  static Cut cut(FileChannel channel, long start, long limit, int maxLines, int bufferSize) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(bufferSize);
    byte[] chunk = buffer.array();
    long position = start;
    long end = start;
    int lines = 0;
    outer:
    while (position < limit) {
      int n = read(channel, buffer, position, limit);
      if (n <= 0) {
        break; // end of file: it may have shrunk since its size was read
      }
      for (int i = 0; i < n; i++) {
        if (chunk[i] == '\n') {
          lines++;
          end = position + i + 1;
          if (lines == maxLines) {
            break outer;
          }
        }
      }
      position += n;
    }
    CRC32 crc = new CRC32();
    position = start;
    while (position < end) {
      int n = read(channel, buffer, position, end);
      if (n <= 0) {
        // Shrunk between the two passes: report the lines whose bytes were checksummed in full (none is safe).
        return new Cut(start, 0, 0);
      }
      crc.update(chunk, 0, n);
      position += n;
    }
    return new Cut(end, lines, crc.getValue());
  }

  /**
   * Reads {@code [start, end)}: computes the CRC-32 of every byte read and hands each complete line to
   * {@code sink}. Stops early only at the end of the file.
   */
  static Read read(FileChannel channel, long start, long end, int bufferSize, LineSink sink) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(bufferSize);
    byte[] chunk = buffer.array();
    byte[] line = new byte[Math.min(bufferSize, 256)];
    int lineLength = 0;
    long lineOffset = start;
    long position = start;
    CRC32 crc = new CRC32();
    while (position < end) {
      int n = read(channel, buffer, position, end);
      if (n <= 0) {
        break;
      }
      crc.update(chunk, 0, n);
      int i = 0;
      while (i < n) {
        int newline = indexOf(chunk, i, n);
        int segmentEnd = newline < 0 ? n : newline;
        int segment = segmentEnd - i;
        if (lineLength + segment > line.length) {
          line = Arrays.copyOf(line, Math.max(Math.addExact(lineLength, segment), line.length * 2));
        }
        System.arraycopy(chunk, i, line, lineLength, segment);
        lineLength += segment;
        if (newline < 0) {
          break;
        }
        sink.line(lineOffset, line, lineLength);
        lineOffset = position + newline + 1;
        lineLength = 0;
        i = newline + 1;
      }
      position += n;
    }
    return new Read(position - start, lineOffset, crc.getValue());
  }

  private static int read(FileChannel channel, ByteBuffer buffer, long position, long limit) throws IOException {
    buffer.clear();
    buffer.limit((int) Math.min(buffer.capacity(), limit - position));
    return channel.read(buffer, position);
  }

  private static int indexOf(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
