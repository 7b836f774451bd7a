/**
 * Internals of the RocksDB store: the order-preserving key encoding ({@link
 * io.epochal.store.rocksdb.internal.KeyEncoding}), the compact value encoding, the stored schema text, the format
 * file, and the cross-process lease file with its lock. Not API: may change in any release.
 */
package io.epochal.store.rocksdb.internal;
