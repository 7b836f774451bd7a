package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * What {@link KeyedProcessor#init} gets: where the processor runs, and the factories of its state clients.
 * Valid only during {@code init} (except {@link #currentWatermark}, which a processor may keep the context to read);
 * not thread-safe.
 *
 * @param <K> the processor's key type
 * @since 0.1.0
 */
@Evolving
public interface ProcessorContext<K> {

  /** @return the pipeline's name ({@code "<declaring>"} during the spec pass, when it is not known yet) */
  String pipeline();

  /** @return the computation's name, as given to {@link Flow#process} */
  String computation();

  /** @return this instance's partition, in {@code [0, partitions())} (0 during the spec pass) */
  int partition();

  /** @return the number of partitions (1 during the spec pass) */
  int partitions();

  /**
   * Declares a read-write state: an internal one (a table created and named by the library) or an external one (a
   * table the user created, whose schema is validated). The state claims its table for writing.
   *
   * @param spec the state's name, table, key codec, value codec and options
   * @param <S> the state type
   * @return the client, to keep in a field
   * @throws IllegalArgumentException if a state or joiner of this computation already has {@code spec}'s name
   * @throws io.epochal.errors.TableClaimedTwiceException if another writer already claimed the table
   * @throws io.epochal.errors.SchemaMismatchException if an external table's schema does not fit the spec
   * @throws IllegalStateException if called after {@code init}, or an external table does not exist
   */
  <S> StateClient<K, S> state(StateSpec<K, S> spec);

  /**
   * Declares a joiner: read-only access, TTL-cached, to a table another writer owns. It claims nothing.
   *
   * @param spec the joiner's name, the table it reads, its key and value codecs and its TTL
   * @param <S> the joined state type
   * @return the client, to keep in a field
   * @throws IllegalArgumentException if a state or joiner of this computation already has {@code spec}'s name
   * @throws io.epochal.errors.SchemaMismatchException if the table exists with a schema that does not fit the spec
   * @throws IllegalStateException if called after {@code init}
   */
  <S> JoinedStateClient<K, S> joiner(JoinSpec<K, S> spec);

  /**
   * Declares a set of timers (see {@link TimerSpec}): its tables are created and claimed like an internal state's.
   * Fired timers go to {@link KeyedProcessor#onTimer}. A computation with timers runs in every batch, in every
   * partition, to look for due timers.
   *
   * @param spec the timers' name, time domain, key and payload codecs and firing bounds
   * @param <P> the payload type of the timers
   * @return the client, to keep in a field
   * @throws IllegalArgumentException if a state, joiner or timer spec of this computation already has
   *     {@code spec}'s name
   * @throws io.epochal.errors.TableClaimedTwiceException if another writer already claimed one of its tables
   * @throws IllegalStateException if called after {@code init}, or the checkpoint store does not commit with the
   *     epoch protocol (timers need atomic epochs)
   * @since 0.5.0
   */
  <P> TimerClient<K, P> timers(TimerSpec<K, P> spec);

  /**
   * The computation's event-time watermark, as {@link WatermarkStrategy} defines it: in {@link KeyedProcessor#process}
   * (and {@link KeyedProcessor#processLate}) the watermark in force when the batch started (records below it are
   * late); in {@link KeyedProcessor#onTimer} the watermark after the batch's records (event-time timers up to it
   * fire). Restored from the store after a restart. Unlike the rest of the context it may be read after
   * {@code init}, from the thread processing the partition.
   *
   * @return the watermark in milliseconds; {@link Long#MIN_VALUE} without a watermark strategy, before any record,
   *     and during {@code init}
   * @since 0.5.0
   */
  long currentWatermark();
}
