/**
 * Internals of trident-compat: the STORM-1557 spout guard, the run-time fields check of {@code withFields} and the
 * Kryo value supplier. Not API.
 */
package io.epochal.trident.internal;
