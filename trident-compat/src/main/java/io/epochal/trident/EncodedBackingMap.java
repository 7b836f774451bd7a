package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.Epoch;
import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Cells stored as bytes: an {@link IBackingMap} of cells {@code C} over a store of {@code byte[]}, with a codec (for
 * example Trident's JSON layouts) applied at this layer only. Bytes that cannot be decoded raise
 * {@link StateCorruptedException} naming the store and the key. Forwards the lifecycle to the byte store. As
 * thread-safe as the store and the codec.
 */
final class EncodedBackingMap<K, C> implements IBackingMap<K, C> {
  private final IBackingMap<K, byte[]> bytes;
  private final Codec<C> codec;

  EncodedBackingMap(IBackingMap<K, byte[]> bytes, Codec<C> codec) {
    this.bytes = Objects.requireNonNull(bytes, "bytes");
    this.codec = Objects.requireNonNull(codec, "codec");
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    Map<K, byte[]> stored = bytes.multiGet(keys);
    Map<K, C> out = new HashMap<>(Math.max(16, stored.size() * 2));
    stored.forEach((key, raw) -> {
      try {
        out.put(key, codec.decode(raw));
      } catch (RuntimeException e) {
        throw new StateCorruptedException(bytes.describe(), key, "unknown (" + codec.id() + ")", e);
      }
    });
    return Collections.unmodifiableMap(out);
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    Map<K, byte[]> encoded = new HashMap<>(Math.max(16, cells.size() * 2));
    cells.forEach((key, cell) -> encoded.put(Objects.requireNonNull(key, "key"),
        codec.encode(Objects.requireNonNull(cell, "cell"))));
    bytes.multiPut(encoded);
  }

  /** Forwarded: the byte store may keep per-attempt state (a cache, a table-backed store's epoch). */
  @Override
  public void begin(Epoch epoch) {
    bytes.begin(epoch);
  }

  @Override
  public void end() {
    bytes.end();
  }

  @Override
  public void abort() {
    bytes.abort();
  }

  @Override
  public String describe() {
    return bytes.describe() + " (" + codec.id() + ")";
  }
}
