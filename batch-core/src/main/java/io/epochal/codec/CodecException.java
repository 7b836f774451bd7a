package io.epochal.codec;

import io.epochal.api.Stable;

/**
 * A {@link Codec} could not encode a value or decode bytes: the bytes are garbage, truncated, carry trailing data,
 * were written by another format, or the value has a type the codec cannot represent (for example a class that was
 * not registered with a Kryo codec). The message says which; durable stores wrap it into their own corruption error
 * naming the table, key and txid. Not retryable: decoding the same bytes again gives the same answer.
 *
 * @since 0.1.0
 */
@Stable
public class CodecException extends io.epochal.errors.EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A non-retryable codec failure.
   *
   * @param message which codec failed on what, and why (e.g. truncated bytes, an unregistered class)
   */
  public CodecException(String message) {
    super(message);
  }

  /**
   * A non-retryable codec failure caused by another failure.
   *
   * @param message which codec failed on what, and why
   * @param cause the underlying failure (e.g. the serialization library's exception), or null
   */
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
