/**
 * Implementations of the table-store SPI: the in-memory store and the table-backed state plumbing. Not an API: use
 * {@link io.epochal.store.table.TableStores} and {@link io.epochal.store.table.TableStates}.
 */
package io.epochal.store.table.internal;
