/**
 * Storm Trident interop. The only public type is {@link io.epochal.trident.EpochalTrident} (with its nested
 * {@code SerializableSupplier} and {@code StormStateBuilder}): Trident spouts, operations and states on the Epochal
 * engine; Epochal map states as Trident {@code StateFactory}s on a Storm cluster; codecs of Trident's JSON cell
 * layouts. Every adapter is package-private. Storm ({@code storm-client}) is a provided dependency: the application
 * brings its own. Positional {@code List<Object>} keys exist only in this package.
 */
package io.epochal.trident;
