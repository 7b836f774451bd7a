/** Internals of trident-compat: the STORM-1557 spout guard. Not API. */
package io.epochal.trident.internal;
