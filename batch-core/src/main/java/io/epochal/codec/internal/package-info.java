/**
 * Implementation of the codecs created by {@link io.epochal.codec.Codecs}. Not an API: types here are public only
 * so that {@code io.epochal.codec} can reach them; construct codecs through {@link io.epochal.codec.Codecs}.
 */
package io.epochal.codec.internal;
