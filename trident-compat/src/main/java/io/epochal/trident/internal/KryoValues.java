package io.epochal.trident.internal;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.trident.EpochalTrident.SerializableSupplier;

/**
 * Kryo values ({@code EpochalTrident.kryoValues()}): a serializable supplier of {@link Codecs#kryo(Class...)} with no
 * registered classes. Stateless.
 */
public enum KryoValues implements SerializableSupplier<Codec<Object>> {
  /** The one instance. */
  INSTANCE;

  @Override
  public Codec<Object> get() {
    return Codecs.kryo();
  }
}
