package io.epochal.state.internal;

import io.epochal.state.Epoch;
import java.util.Objects;

/**
 * The epoch a state partition was begun with, until its {@code end()} or {@code abort()}: what the map states of this
 * module check before every call. Internal: not an API. Not thread-safe: owned by one state partition.
 *
 * @since 0.5.0
 */
public final class OpenEpoch {
  private final String owner;
  private Epoch epoch;

  /** @param owner the state named in errors, e.g. {@code "OpaqueMap[counts over ...]"} */
  public OpenEpoch(String owner) {
    this.owner = Objects.requireNonNull(owner, "owner");
  }

  /**
   * {@code begin(epoch)}: opens {@code epoch} (replacing an open one: a new attempt).
   *
   * @param epoch the epoch the state was begun with, not null
   */
  public void begin(Epoch epoch) {
    this.epoch = Objects.requireNonNull(epoch, "epoch");
  }

  /** {@code end()} or {@code abort()}: no epoch is open afterwards. */
  public void close() {
    epoch = null;
  }

  /** @return whether an epoch is open */
  public boolean isOpen() {
    return epoch != null;
  }

  /**
   * The open epoch, for a call that may only read.
   *
   * @param call the state's method being called, named in the error (e.g. {@code "multiGet"})
   * @return the open epoch
   * @throws IllegalStateException naming the state and the call if none is open
   */
  public Epoch require(String call) {
    Epoch e = epoch;
    if (e == null) {
      throw new IllegalStateException(call + " of " + owner + " outside begin(epoch)..end(): a state acts only for the "
          + "epoch it was begun with (to read committed values outside a batch, begin it with Epoch.readAfter)");
    }
    return e;
  }

  /**
   * The open epoch, for a call that writes.
   *
   * @param call the state's method being called, named in the error (e.g. {@code "multiPut"})
   * @return the open epoch, which may write
   * @throws IllegalStateException if none is open or the open one is read-only
   */
  public Epoch requireWritable(String call) {
    Epoch e = require(call);
    if (e.readOnly()) {
      throw new IllegalStateException(call + " of " + owner + " in " + e + ": a read-only epoch never writes");
    }
    return e;
  }

  @Override
  public String toString() {
    return epoch == null ? "no epoch open" : epoch.toString();
  }
}
