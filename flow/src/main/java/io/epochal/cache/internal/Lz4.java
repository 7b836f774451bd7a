package io.epochal.cache.internal;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * LZ4 block compression of level-2 entries. The block does not record the original length: the caller keeps it.
 * Thread-safe (lz4-java's compressors and decompressors are stateless).
 */
final class Lz4 {
  private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
  private static final LZ4Compressor COMPRESSOR = FACTORY.fastCompressor();
  private static final LZ4SafeDecompressor DECOMPRESSOR = FACTORY.safeDecompressor();

  private Lz4() {
  }

  /** @return the compressed block of {@code raw} */
  static byte[] compress(byte[] raw) {
    return COMPRESSOR.compress(raw);
  }

  /**
   * @return the {@code rawLength} bytes {@code block} decompresses to
   * @throws IllegalStateException if the block does not decompress to exactly {@code rawLength} bytes
   */
  static byte[] decompress(byte[] block, int rawLength) {
    byte[] raw = new byte[rawLength];
    int n = DECOMPRESSOR.decompress(block, 0, block.length, raw, 0, rawLength);
    if (n != rawLength) {
      throw new IllegalStateException("LZ4 block decompressed to " + n + " bytes, expected " + rawLength);
    }
    return raw;
  }
}
