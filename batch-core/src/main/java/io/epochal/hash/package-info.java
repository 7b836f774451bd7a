/**
 * Hashing that matches YTsaurus bit for bit: {@link io.epochal.hash.FarmHash} reproduces the {@code farm_hash}
 * query function, so Epochal's group-by partitions line up with {@code hash}-sharded dynamic tables.
 * Everything here is stateless and thread-safe.
 */
package io.epochal.hash;
