package io.epochal.testkit.store;

import io.epochal.api.Evolving;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.TableStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link TableStore} keeps, as an abstract JUnit 5 suite (like Kafka's
 * {@code AbstractKeyValueStoreTest}). Shipped in {@code epochal-testkit}: depend on it with {@code <scope>test</scope>}
 * and subclass it (or subclass {@link io.epochal.testkit.TableStoreContractKit}, which adds replay checks).
 *
 * <p>A subclass implements {@link #createStore(CommitHook)}: a store over this test's location (JUnit makes a new
 * test instance per test method, so a {@code @TempDir} field or a random table prefix gives each test its own). A
 * second call in the same test, after the first store was closed, must reopen the same location: that is how
 * {@link #supportsReopen()} tests persistence. Stores that cannot persist override {@link #supportsReopen()} to
 * return false. Override {@link #tablePath(String)} to place the test tables (for example under a YTsaurus
 * directory). Every store created is closed after the test.
 *
 * <p><b>Read faults.</b> The contract opens every store through {@link #createStore(CommitHook, ReadHook)}, whose
 * default ignores the {@link ReadHook} and calls {@link #createStore(CommitHook)}. A store passes the read-fault cases
 * (an unreadable store, damaged stored bytes, in single calls and under whole pipelines and their checkpoints) only if
 * it calls the hook, so override that method to give the hook to the store; a store that does not wire it fails them,
 * naming this method. A store that keeps rows as objects rather than bytes overrides {@link #storesBytes()}; a store
 * that cannot take a read hook at all may opt out explicitly, with a reason shown on every skipped case
 * ({@link #readFaultsOptOut()}).
 *
 * <pre>{@code
 * class MyTableStoreTest extends TableStoreContract {
 *   @TempDir Path dir;
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit, ReadHook read) {
 *     return MyTableStore.builder(dir).commitHook(commit).readHook(read).build();
 *   }
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit) {
 *     return createStore(commit, ReadHook.NONE);
 *   }
 * }
 * }</pre>
 *
 * <p>The cases live in package-private topic classes ({@code ReadWriteCases}, {@code CommitAndConflictCases},
 * {@code LeaseCases}, {@code SchemaCases}, {@code ReadFaultCases}, {@code PipelineReadFaultCases}) over one fixture
 * per instance; each {@code @Test} here runs one case, so every case stays a test method of this class (its name,
 * test source and method reference). Not thread-safe: JUnit runs an instance's test on one thread.
 *
 * @since 0.1.0
 */
@Evolving
public abstract class TableStoreContract {
  private final ContractFixture fixture = new ContractFixture(this);
  private final ReadWriteCases readsAndWrites = new ReadWriteCases(fixture);
  private final CommitAndConflictCases commits = new CommitAndConflictCases(fixture);
  private final LeaseCases leases = new LeaseCases(fixture);
  private final SchemaCases schemas = new SchemaCases(fixture);
  private final ReadFaultCases readFaults = new ReadFaultCases(fixture);
  private final PipelineReadFaultCases pipelineReadFaults = new PipelineReadFaultCases(fixture);

  /**
   * Creates (or, when called again in the same test after closing the previous one, reopens) the store under test.
   *
   * @param hook the fault-injection hook the store must call during commits (see {@link CommitHook})
   * @return a store over this test's location: empty on the first call, holding what the previous one committed on
   *     a reopen
   */
  protected abstract TableStore createStore(CommitHook hook);

  /**
   * Creates (or reopens, see {@link #createStore(CommitHook)}) the store under test with both fault-injection hooks.
   * Every store the contract opens comes from here. The default ignores {@code read} and returns
   * {@code createStore(commit)}: such a store fails the read-fault cases, so override this to pass the hook on.
   *
   * @param commit the hook the store must call during commits (see {@link CommitHook})
   * @param read the hook the store must call on every read (see {@link ReadHook})
   * @return a store over this test's location, as {@link #createStore(CommitHook)} returns
   */
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return createStore(commit);
  }

  /**
   * Whether the store keeps rows as bytes that it decodes on every read, and so passes them through
   * {@link ReadHook#storedBytes} (default true). Return false for a store that keeps rows as objects (the in-memory
   * store) or as typed columns a server decodes: the contract then checks that it never calls
   * {@link ReadHook#storedBytes}, and skips the damaged-bytes cases saying why.
   *
   * @return whether the store passes stored bytes through {@link ReadHook#storedBytes}
   */
  protected boolean storesBytes() {
    return true;
  }

  /**
   * An explicit opt-out of every read-fault case, with the reason shown on each skipped case (default: none, the
   * cases run). Only for a store that cannot take a {@link ReadHook}; a store that can must wire it in
   * {@link #createStore(CommitHook, ReadHook)} instead.
   *
   * @return the reason the read-fault cases are skipped, or empty to run them
   */
  protected Optional<String> readFaultsOptOut() {
    return Optional.empty();
  }

  /**
   * Whether a store created again over the same location sees what the previous one committed (default true).
   *
   * @return false to skip the cases that reopen the store (for a store that lives in memory only)
   */
  protected boolean supportsReopen() {
    return true;
  }

  /**
   * The path of the contract's table {@code name}; override to place tables elsewhere.
   *
   * @param name the contract's short name of the table, e.g. {@code "counts"}
   * @return the table's path in the store, {@code "contract/<name>"} by default
   */
  protected String tablePath(String name) {
    return "contract/" + name;
  }

  /** Closes every store the test opened, after each test. */
  @AfterEach
  public void closeStores() {
    fixture.closeStores();
  }

  // ------------------------------------------------------------------ lookups (ReadWriteCases)

  /** Checks that a lookup returns an empty element in the place of each key without a row. */
  @Test
  public void shouldReportMissingKeysInPlace() {
    readsAndWrites.shouldReportMissingKeysInPlace();
  }

  /** Checks that a lookup returns one element per key asked, in the order asked, a repeated key included. */
  @Test
  public void shouldReturnLookupResultsInTheOrderOfTheKeysAsked() {
    readsAndWrites.shouldReturnLookupResultsInTheOrderOfTheKeysAsked();
  }

  /** Checks that a committed row reads back equal, for a value of every column type and for null values. */
  @Test
  public void shouldRoundTripEveryColumnTypeIncludingNulls() {
    readsAndWrites.shouldRoundTripEveryColumnTypeIncludingNulls();
  }

  // ------------------------------------------------------------------ visibility and lifecycle (ReadWriteCases)

  /**
   * Checks that an upsert is invisible to other transactions, and to its own lookups, until its transaction commits.
   */
  @Test
  public void shouldMakeUpsertsVisibleOnlyAfterCommit() {
    readsAndWrites.shouldMakeUpsertsVisibleOnlyAfterCommit();
  }

  /**
   * Checks that a delete leaves the row readable until its transaction commits, and that deleting a missing key does nothing.
   */
  @Test
  public void shouldMakeDeletesVisibleOnlyAfterCommit() {
    readsAndWrites.shouldMakeDeletesVisibleOnlyAfterCommit();
  }

  /** Checks that an aborted (or closed, open) transaction applies none of its writes and refuses to commit. */
  @Test
  public void shouldDropEverythingOnAbort() {
    readsAndWrites.shouldDropEverythingOnAbort();
  }

  /** Checks that, within one transaction, the last upsert or delete of a key is what commits. */
  @Test
  public void shouldLetTheLastWriteOfAKeyWinWithinATransaction() {
    readsAndWrites.shouldLetTheLastWriteOfAKeyWinWithinATransaction();
  }

  /** Checks that a committed transaction refuses further calls with {@link IllegalStateException}. */
  @Test
  public void shouldEndTheTransactionWithItsCommit() {
    readsAndWrites.shouldEndTheTransactionWithItsCommit();
  }

  /** Checks that a scan returns every row in YTsaurus key order: by the hash as unsigned, then by the key columns. */
  @Test
  public void shouldScanInYtKeyOrder() {
    readsAndWrites.shouldScanInYtKeyOrder();
  }

  /**
   * Checks that writes staged into one transaction from several threads at once all commit.
   *
   * @throws Exception if a writing thread fails or is interrupted
   */
  @Test
  public void shouldAcceptConcurrentWritesToOneTransaction() throws Exception {
    readsAndWrites.shouldAcceptConcurrentWritesToOneTransaction();
  }

  // ------------------------------------------------------------------ atomicity (CommitAndConflictCases)

  /** Checks that one commit applies the writes of several tables. */
  @Test
  public void shouldCommitSeveralTablesTogether() {
    commits.shouldCommitSeveralTablesTogether();
  }

  /**
   * Checks that a commit failed by the commit hook between two table writes applies nothing, when the store declares
   * atomic multi-table commits.
   */
  @Test
  public void shouldApplyNothingWhenTheCommitFailsMidway() {
    commits.shouldApplyNothingWhenTheCommitFailsMidway();
  }

  // ------------------------------------------------------------------ conflicts (CommitAndConflictCases)

  /**
   * Checks that of two overlapping transactions writing one row, the second to commit fails with {@link
   * io.epochal.errors.CommitConflictException} and applies nothing.
   */
  @Test
  public void shouldFailTheSecondOfTwoOverlappingWritesToOneRow() {
    commits.shouldFailTheSecondOfTwoOverlappingWritesToOneRow();
  }

  /** Checks that a delete committed by an overlapping transaction conflicts with a write of the same row. */
  @Test
  public void shouldDetectAConflictWithACommittedDelete() {
    commits.shouldDetectAConflictWithACommittedDelete();
  }

  /**
   * Checks that overlapping transactions on different rows, and a transaction begun after another committed, both
   * commit.
   */
  @Test
  public void shouldNotConflictWithoutOverlapOrOnDifferentRows() {
    commits.shouldNotConflictWithoutOverlapOrOnDifferentRows();
  }

  // ------------------------------------------------------------------ leases and fencing (LeaseCases)

  /** Checks that each takeover of a lease returns a higher generation, held by the new owner. */
  @Test
  public void shouldIncreaseTheLeaseGenerationOnEveryTakeover() {
    leases.shouldIncreaseTheLeaseGenerationOnEveryTakeover();
  }

  /** Checks that a transaction begun under the current lease commits. */
  @Test
  public void shouldCommitUnderTheCurrentLease() {
    leases.shouldCommitUnderTheCurrentLease();
  }

  /**
   * Checks that a transaction whose lease was taken over fails with {@link io.epochal.errors.LeaseLostException} and
   * applies nothing, when the store declares fencing.
   */
  @Test
  public void shouldFenceACommitOnceItsLeaseWasTakenOver() {
    leases.shouldFenceACommitOnceItsLeaseWasTakenOver();
  }

  // ------------------------------------------------------------------ schemas, keys and validation (SchemaCases)

  /**
   * Checks that opening a table creates it once, reopens it with the same schema, and refuses another schema with
   * {@link io.epochal.errors.SchemaMismatchException}.
   */
  @Test
  public void shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen() {
    schemas.shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen();
  }

  /** Checks that {@link TableStore#findTable} finds an opened table with its schema and nothing at another path. */
  @Test
  public void shouldFindExistingTablesWithTheirSchema() {
    schemas.shouldFindExistingTablesWithTheirSchema();
  }

  /** Checks that the stored hash column is the farm_hash of the user key columns. */
  @Test
  public void shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns() {
    schemas.shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns();
  }

  /** Checks that a null key part is refused with a {@link NullPointerException} naming the table and the column. */
  @Test
  public void shouldRejectNullKeyPartsNamingTableAndColumn() {
    schemas.shouldRejectNullKeyPartsNamingTableAndColumn();
  }

  /** Checks that keys and rows of another table, or with values that do not fit the columns, are refused. */
  @Test
  public void shouldRejectKeysAndRowsThatDoNotFitTheSchema() {
    schemas.shouldRejectKeysAndRowsThatDoNotFitTheSchema();
  }

  /** Checks that {@code bytes} key columns are compared by content: equal arrays address the same row. */
  @Test
  public void shouldTreatByteKeysByContent() {
    schemas.shouldTreatByteKeysByContent();
  }

  // ------------------------------------------------------------------ persistence (SchemaCases)

  /**
   * Checks that a store reopened over the same location keeps committed rows, deletes, schemas and lease generations,
   * and drops uncommitted writes; skipped unless {@link #supportsReopen()}.
   */
  @Test
  public void shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen() {
    schemas.shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen();
  }

  // ----------------------------------------------------------------- read faults: an unreadable store (ReadFaultCases)

  /** Checks that a lookup whose read fails throws the failure instead of reporting the keys missing. */
  @Test
  public void shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing() {
    readFaults.shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing();
  }

  /** Checks that a scan whose read fails throws the failure instead of returning an empty table. */
  @Test
  public void shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable() {
    readFaults.shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable();
  }

  /** Checks that {@link TableStore#lookup} outside a transaction throws a read failure too. */
  @Test
  public void shouldFailAOneOffLookupWhoseReadFails() {
    readFaults.shouldFailAOneOffLookupWhoseReadFails();
  }

  /**
   * Checks that the store calls {@link ReadHook#beforeRead} with the path of the table read, on every lookup and
   * scan.
   */
  @Test
  public void shouldNameTheTableOfEachReadToTheReadHook() {
    readFaults.shouldNameTheTableOfEachReadToTheReadHook();
  }

  // ---------------------------------------------------------------- read faults: damaged stored bytes (ReadFaultCases)

  /**
   * Checks that a store keeping bytes passes the stored bytes of every row read through {@link ReadHook#storedBytes},
   * and that one keeping objects never calls it.
   */
  @Test
  public void shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook() {
    readFaults.shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook();
  }

  /**
   * Checks that a read of stored bytes with any one bit flipped fails with a named error instead of returning a wrong
   * row.
   */
  @Test
  public void shouldRefuseAStoredRowWithAnyBitFlipped() {
    readFaults.shouldRefuseAStoredRowWithAnyBitFlipped();
  }

  /** Checks that a read of truncated stored bytes fails with a named error instead of returning a wrong row. */
  @Test
  public void shouldRefuseATruncatedStoredRow() {
    readFaults.shouldRefuseATruncatedStoredRow();
  }

  /** Checks that a read of garbage in place of the stored bytes fails with a named error instead of returning a row. */
  @Test
  public void shouldRefuseGarbageInPlaceOfAStoredRow() {
    readFaults.shouldRefuseGarbageInPlaceOfAStoredRow();
  }

  // ------------------------------------------------------------- read faults under a pipeline (PipelineReadFaultCases)

  /** Checks that a pipeline whose state table cannot be read stops without committing the batch. */
  @Test
  public void shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch() {
    pipelineReadFaults.shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch();
  }

  /** Checks that a pipeline whose stored state bytes are damaged stops without committing the batch. */
  @Test
  public void shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch() {
    pipelineReadFaults.shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch();
  }

  /**
   * Checks that a restarted pipeline whose checkpoint cannot be read stops instead of starting over, and
   * resumes exactly once the reads heal.
   */
  @Test
  public void shouldNotStartOverWhenTheCheckpointCannotBeRead() {
    pipelineReadFaults.shouldNotStartOverWhenTheCheckpointCannotBeRead();
  }

  /** Checks that a restarted pipeline whose stored checkpoint bytes are damaged stops instead of starting over. */
  @Test
  public void shouldNotStartOverWhenTheCheckpointBytesAreDamaged() {
    pipelineReadFaults.shouldNotStartOverWhenTheCheckpointBytesAreDamaged();
  }
}
