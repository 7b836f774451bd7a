/**
 * Pipeline outputs: the {@link io.epochal.sink.Sink} SPI (staged in a batch's epoch, published after its commit), its
 * partition-aware variant, and an in-memory {@link io.epochal.sink.CollectingSink}.
 */
package io.epochal.sink;
