/**
 * Byte codecs for state values and keys. {@link io.epochal.codec.Codecs} creates them; every
 * {@link io.epochal.codec.Codec} is thread-safe, rejects {@code null}, and throws
 * {@link io.epochal.codec.CodecException} instead of returning a wrong value for undecodable bytes. Each codec's
 * {@link io.epochal.codec.Codec#id()} names its format so stores can refuse state written by another codec.
 */
package io.epochal.codec;
