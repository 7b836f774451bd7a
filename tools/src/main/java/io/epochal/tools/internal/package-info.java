/** Internals of the {@code epochal} command: store access, value decoding, commands and output. */
package io.epochal.tools.internal;
