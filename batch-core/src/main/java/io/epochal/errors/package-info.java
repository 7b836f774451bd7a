/**
 * Typed exceptions of Epochal. Every failure the library detects is an {@link io.epochal.errors.EpochalException};
 * each subtype names what a user needs to act on: the table, the key, the txids, the spout and state involved.
 */
package io.epochal.errors;
