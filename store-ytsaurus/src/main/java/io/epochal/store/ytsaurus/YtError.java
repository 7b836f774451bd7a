package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An error as YTsaurus reports it: {@code {"code": int, "message": str, "attributes": {...}, "inner_errors": [...]}}.
 * The code that matters (1700 row conflict, 1000 prerequisite failed, 11000 no such transaction, ...) is often nested
 * several levels deep in {@link #innerErrors()}, so use {@link #find(int)} / {@link #contains(int)}, which search the
 * whole tree, rather than {@link #code()}.
 *
 * <p>Immutable and thread-safe. Attribute values are the parsed JSON values ({@code String}, {@code Long},
 * {@code Double}, {@code Boolean}, {@code List}, {@code Map} or {@code null}).
 *
 * @param code the top-level code (0 = OK, 1 = generic error)
 * @param message the top-level message, never {@code null}
 * @param attributes the attributes (host, datetime, transaction id, ...), unmodifiable
 * @param innerErrors the causes, unmodifiable
 * @since 0.1.0
 */
@Evolving
public record YtError(int code, String message, Map<String, Object> attributes, List<YtError> innerErrors) {

  /** Row lock conflict of a tablet transaction ({@code TransactionLockConflict}). */
  public static final int TRANSACTION_LOCK_CONFLICT = 1700;
  /** No such tablet. */
  public static final int NO_SUCH_TABLET = 1701;
  /** The tablet is not mounted. */
  public static final int TABLET_NOT_MOUNTED = 1702;
  /** All writes disabled (tablet overloaded). */
  public static final int ALL_WRITES_DISABLED = 1703;
  /** Invalid mount revision (tablet remounted meanwhile). */
  public static final int INVALID_MOUNT_REVISION = 1704;
  /** Row is blocked. */
  public static final int ROW_IS_BLOCKED = 1712;
  /** Blocked row wait timeout. */
  public static final int BLOCKED_ROW_WAIT_TIMEOUT = 1713;
  /** No such tablet cell. */
  public static final int NO_SUCH_CELL = 1721;
  /** Chunk data not preloaded yet. */
  public static final int CHUNK_IS_NOT_PRELOADED = 1735;
  /** No such transaction; also a sticky tablet transaction that this HTTP proxy does not hold. */
  public static final int NO_SUCH_TRANSACTION = 11000;
  /** Invalid transaction state. */
  public static final int INVALID_TRANSACTION_STATE = 11003;
  /** Prerequisite check failed (the lease transaction named as prerequisite is gone). */
  public static final int PREREQUISITE_CHECK_FAILED = 1000;
  /** Cypress lock conflict with a concurrent transaction (leader election). */
  public static final int CONCURRENT_TRANSACTION_LOCK_CONFLICT = 402;
  /** Resolve error: no such Cypress node. */
  public static final int RESOLVE_ERROR = 500;
  /** Node already exists. */
  public static final int ALREADY_EXISTS = 501;
  /** Authorization error. */
  public static final int AUTHORIZATION_ERROR = 901;
  /** Transport error. */
  public static final int TRANSPORT_ERROR = 100;
  /** No such service. */
  public static final int NO_SUCH_SERVICE = 102;
  /** Service unavailable. */
  public static final int UNAVAILABLE = 105;
  /** Request queue size limit exceeded. */
  public static final int REQUEST_QUEUE_SIZE_LIMIT_EXCEEDED = 108;
  /** Request rate limit exceeded. */
  public static final int REQUEST_RATE_LIMIT_EXCEEDED = 904;
  /**
   * Queue consumer offset conflict ({@code ConsumerOffsetConflict}): {@code advance_queue_consumer} found another
   * offset than its {@code old_offset}; attributes {@code partition}, {@code consumer}, {@code expected_offset},
   * {@code current_offset} (repo {@code yt/yt/client/queue_client/public.h}, {@code consumer_client.cpp}).
   */
  public static final int CONSUMER_OFFSET_CONFLICT = 3100;
  /** Timeout. */
  public static final int TIMEOUT = 3;

  /**
   * Copies the collections.
   *
   * @param code the top-level code (0 = OK, 1 = generic error)
   * @param message the top-level message
   * @param attributes the attributes (host, datetime, transaction id, ...); copied, keeping their order
   * @param innerErrors the causes; copied
   * @throws NullPointerException if {@code message}, {@code attributes} or {@code innerErrors} is {@code null}
   */
  public YtError {
    Objects.requireNonNull(message, "message");
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(attributes, "attributes")));
    innerErrors = List.copyOf(Objects.requireNonNull(innerErrors, "innerErrors"));
  }

  /**
   * An error with no attributes.
   *
   * @param code the code
   * @param message the message
   * @param inner the inner errors
   * @return the error
   */
  public static YtError of(int code, String message, YtError... inner) {
    return new YtError(code, message, Map.of(), List.of(inner));
  }

  /**
   * Depth-first search of this error and all nested inner errors for {@code code}.
   *
   * @param code the code to look for
   * @return the first (outermost, then leftmost) error with that code
   */
  public Optional<YtError> find(int code) {
    return findFirst(e -> e.code == code);
  }

  /**
   * Tells whether a code occurs in this error tree.
   *
   * @param code the code to look for
   * @return whether this error or any nested inner error has {@code code}
   */
  public boolean contains(int code) {
    return find(code).isPresent();
  }

  /**
   * Depth-first search of this error tree.
   *
   * @param predicate the condition
   * @return the first matching error, outermost first
   */
  public Optional<YtError> findFirst(Predicate<YtError> predicate) {
    if (predicate.test(this)) {
      return Optional.of(this);
    }
    for (YtError inner : innerErrors) {
      Optional<YtError> found = inner.findFirst(predicate);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /**
   * Lists the codes of this error and its inner errors.
   *
   * @return every code in the tree, depth-first, outermost first (duplicates kept)
   */
  public List<Integer> allCodes() {
    List<Integer> codes = new ArrayList<>();
    collect(codes);
    return codes;
  }

  private void collect(List<Integer> codes) {
    codes.add(code);
    for (YtError inner : innerErrors) {
      inner.collect(codes);
    }
  }

  /**
   * A one-line summary of the whole tree: {@code "message (code N) <- inner message (code M) <- ..."} following
   * the first inner error at each level, plus the codes of the others.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    YtError e = this;
    while (true) {
      sb.append(e.message).append(" (code ").append(e.code).append(')');
      if (e.innerErrors.isEmpty()) {
        break;
      }
      if (e.innerErrors.size() > 1) {
        sb.append(" [+").append(e.innerErrors.size() - 1).append(" more inner errors with codes ");
        List<Integer> others = new ArrayList<>();
        for (YtError o : e.innerErrors.subList(1, e.innerErrors.size())) {
          o.collect(others);
        }
        sb.append(others).append(']');
      }
      sb.append(" <- ");
      e = e.innerErrors.get(0);
    }
    return sb.toString();
  }
}
