package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import java.util.Optional;
import java.util.function.Function;

/**
 * Spout wrappers that change nothing but the emission: name, codec, {@code nextBatch}/{@code isReady}, {@code success}
 * and {@code close} go to the wrapped spout unchanged, and every emit call runs the wrapped spout's emission through
 * an {@link EmitDecorator} (which may record, delay or fail it, or hand it another collector). The wrapper keeps the
 * wrapped spout's kind and replay promise, for every emission the decorator lets through unchanged.
 *
 * <p>A wrapper implements {@link Transactional}, {@link Opaque} or {@link NonTransactional}: it gives the wrapped spout
 * and {@link EmitDecorator#aroundEmit}, everything else is forwarded. The testkit's fault injector
 * ({@code io.epochal.testkit.FaultInjector}, the project's one fault model) builds its spout wrappers on them.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class ForwardingSpouts {
  private ForwardingSpouts() {
  }

  /** What runs around each emission of a wrapped spout. */
  @FunctionalInterface
  public interface EmitDecorator {
    /**
     * Runs one emission of the wrapped spout.
     *
     * @param attempt the batch attempt being emitted
     * @param out where the engine collects the batch's records
     * @param emission the wrapped spout's emit call, into the collector it is given; returns what the spout's emit
     *     returns ({@code null} for the kinds whose emit returns nothing)
     * @param <T> the record type
     * @param <R> what the wrapped spout's emit returns (its batch metadata, or {@code Void})
     * @return what {@code emission} returned, or a replacement
     */
    <T, R> R aroundEmit(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission);
  }

  /**
   * A {@link TransactionalSpout} that forwards every call to {@link #wrapped()}, each emission through
   * {@link #aroundEmit}.
   *
   * @param <T> the record type
   * @param <M> the batch metadata type
   */
  public interface Transactional<T, M> extends TransactionalSpout<T, M>, EmitDecorator {
    /** @return the wrapped spout */
    TransactionalSpout<T, M> wrapped();

    @Override
    default String name() {
      return wrapped().name();
    }

    /** The wrapped spout's kind (a wrapper never claims more than the spout it wraps). */
    @Override
    default io.epochal.spout.SpoutKind kind() {
      return wrapped().kind();
    }

    @Override
    default Codec<M> metadataCodec() {
      return wrapped().metadataCodec();
    }

    @Override
    default Optional<M> nextBatch(long txid, Optional<M> previous) {
      return wrapped().nextBatch(txid, previous);
    }

    @Override
    default void emit(BatchAttempt attempt, M metadata, Collector<T> out) {
      aroundEmit(attempt, out, c -> {
        wrapped().emit(attempt, metadata, c);
        return null;
      });
    }

    @Override
    default void success(long txid) {
      wrapped().success(txid);
    }

    @Override
    default void close() {
      wrapped().close();
    }
  }

  /**
   * An {@link OpaqueSpout} that forwards every call to {@link #wrapped()}, each emission through {@link #aroundEmit}.
   *
   * @param <T> the record type
   * @param <M> the position type
   */
  public interface Opaque<T, M> extends OpaqueSpout<T, M>, EmitDecorator {
    /** @return the wrapped spout */
    OpaqueSpout<T, M> wrapped();

    @Override
    default String name() {
      return wrapped().name();
    }

    /** The wrapped spout's kind (a wrapper never claims more than the spout it wraps). */
    @Override
    default io.epochal.spout.SpoutKind kind() {
      return wrapped().kind();
    }

    @Override
    default Codec<M> metadataCodec() {
      return wrapped().metadataCodec();
    }

    @Override
    default boolean isReady(long txid, Optional<M> previous) {
      return wrapped().isReady(txid, previous);
    }

    @Override
    default M emit(BatchAttempt attempt, Optional<M> previous, Collector<T> out) {
      return aroundEmit(attempt, out, c -> wrapped().emit(attempt, previous, c));
    }

    @Override
    default void success(long txid) {
      wrapped().success(txid);
    }

    @Override
    default void close() {
      wrapped().close();
    }
  }

  /**
   * A {@link NonTransactionalSpout} that forwards every call to {@link #wrapped()}, each emission through
   * {@link #aroundEmit}.
   *
   * @param <T> the record type
   */
  public interface NonTransactional<T> extends NonTransactionalSpout<T>, EmitDecorator {
    /** @return the wrapped spout */
    NonTransactionalSpout<T> wrapped();

    @Override
    default String name() {
      return wrapped().name();
    }

    /** The wrapped spout's kind (a wrapper never claims more than the spout it wraps). */
    @Override
    default io.epochal.spout.SpoutKind kind() {
      return wrapped().kind();
    }

    @Override
    default Codec<byte[]> metadataCodec() {
      return wrapped().metadataCodec();
    }

    @Override
    default boolean isReady(long txid) {
      return wrapped().isReady(txid);
    }

    @Override
    default void emit(BatchAttempt attempt, Collector<T> out) {
      aroundEmit(attempt, out, c -> {
        wrapped().emit(attempt, c);
        return null;
      });
    }

    @Override
    default void success(long txid) {
      wrapped().success(txid);
    }

    @Override
    default void close() {
      wrapped().close();
    }
  }
}
