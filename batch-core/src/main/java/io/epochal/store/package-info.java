/**
 * Where the coordinator's progress lives: {@link io.epochal.store.CheckpointStore} records the last committed txid
 * and the spout metadata of each batch, so a restarted pipeline resumes after the last committed batch.
 * {@link io.epochal.store.InMemoryCheckpointStore} is the in-memory implementation for tests and examples.
 */
package io.epochal.store;
