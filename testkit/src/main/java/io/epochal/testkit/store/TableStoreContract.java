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
   */
  protected abstract TableStore createStore(CommitHook hook);

  /**
   * Creates (or reopens, see {@link #createStore(CommitHook)}) the store under test with both fault-injection hooks.
   * Every store the contract opens comes from here. The default ignores {@code read} and returns
   * {@code createStore(commit)}: such a store fails the read-fault cases, so override this to pass the hook on.
   *
   * @param commit the hook the store must call during commits (see {@link CommitHook})
   * @param read the hook the store must call on every read (see {@link ReadHook})
   */
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return createStore(commit);
  }

  /**
   * Whether the store keeps rows as bytes that it decodes on every read, and so passes them through
   * {@link ReadHook#storedBytes} (default true). Return false for a store that keeps rows as objects (the in-memory
   * store) or as typed columns a server decodes: the contract then checks that it never calls
   * {@link ReadHook#storedBytes}, and skips the damaged-bytes cases saying why.
   */
  protected boolean storesBytes() {
    return true;
  }

  /**
   * An explicit opt-out of every read-fault case, with the reason shown on each skipped case (default: none, the
   * cases run). Only for a store that cannot take a {@link ReadHook}; a store that can must wire it in
   * {@link #createStore(CommitHook, ReadHook)} instead.
   */
  protected Optional<String> readFaultsOptOut() {
    return Optional.empty();
  }

  /** Whether a store created again over the same location sees what the previous one committed. */
  protected boolean supportsReopen() {
    return true;
  }

  /** The path of the contract's table {@code name}; override to place tables elsewhere. */
  protected String tablePath(String name) {
    return "contract/" + name;
  }

  @AfterEach
  public void closeStores() {
    fixture.closeStores();
  }

  // ------------------------------------------------------------------ lookups (ReadWriteCases)

  @Test
  public void shouldReportMissingKeysInPlace() {
    readsAndWrites.shouldReportMissingKeysInPlace();
  }

  @Test
  public void shouldReturnLookupResultsInTheOrderOfTheKeysAsked() {
    readsAndWrites.shouldReturnLookupResultsInTheOrderOfTheKeysAsked();
  }

  @Test
  public void shouldRoundTripEveryColumnTypeIncludingNulls() {
    readsAndWrites.shouldRoundTripEveryColumnTypeIncludingNulls();
  }

  // ------------------------------------------------------------------ visibility and lifecycle (ReadWriteCases)

  @Test
  public void shouldMakeUpsertsVisibleOnlyAfterCommit() {
    readsAndWrites.shouldMakeUpsertsVisibleOnlyAfterCommit();
  }

  @Test
  public void shouldMakeDeletesVisibleOnlyAfterCommit() {
    readsAndWrites.shouldMakeDeletesVisibleOnlyAfterCommit();
  }

  @Test
  public void shouldDropEverythingOnAbort() {
    readsAndWrites.shouldDropEverythingOnAbort();
  }

  @Test
  public void shouldLetTheLastWriteOfAKeyWinWithinATransaction() {
    readsAndWrites.shouldLetTheLastWriteOfAKeyWinWithinATransaction();
  }

  @Test
  public void shouldEndTheTransactionWithItsCommit() {
    readsAndWrites.shouldEndTheTransactionWithItsCommit();
  }

  @Test
  public void shouldScanInYtKeyOrder() {
    readsAndWrites.shouldScanInYtKeyOrder();
  }

  @Test
  public void shouldAcceptConcurrentWritesToOneTransaction() throws Exception {
    readsAndWrites.shouldAcceptConcurrentWritesToOneTransaction();
  }

  // ------------------------------------------------------------------ atomicity (CommitAndConflictCases)

  @Test
  public void shouldCommitSeveralTablesTogether() {
    commits.shouldCommitSeveralTablesTogether();
  }

  @Test
  public void shouldApplyNothingWhenTheCommitFailsMidway() {
    commits.shouldApplyNothingWhenTheCommitFailsMidway();
  }

  // ------------------------------------------------------------------ conflicts (CommitAndConflictCases)

  @Test
  public void shouldFailTheSecondOfTwoOverlappingWritesToOneRow() {
    commits.shouldFailTheSecondOfTwoOverlappingWritesToOneRow();
  }

  @Test
  public void shouldDetectAConflictWithACommittedDelete() {
    commits.shouldDetectAConflictWithACommittedDelete();
  }

  @Test
  public void shouldNotConflictWithoutOverlapOrOnDifferentRows() {
    commits.shouldNotConflictWithoutOverlapOrOnDifferentRows();
  }

  // ------------------------------------------------------------------ leases and fencing (LeaseCases)

  @Test
  public void shouldIncreaseTheLeaseGenerationOnEveryTakeover() {
    leases.shouldIncreaseTheLeaseGenerationOnEveryTakeover();
  }

  @Test
  public void shouldCommitUnderTheCurrentLease() {
    leases.shouldCommitUnderTheCurrentLease();
  }

  @Test
  public void shouldFenceACommitOnceItsLeaseWasTakenOver() {
    leases.shouldFenceACommitOnceItsLeaseWasTakenOver();
  }

  // ------------------------------------------------------------------ schemas, keys and validation (SchemaCases)

  @Test
  public void shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen() {
    schemas.shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen();
  }

  @Test
  public void shouldFindExistingTablesWithTheirSchema() {
    schemas.shouldFindExistingTablesWithTheirSchema();
  }

  @Test
  public void shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns() {
    schemas.shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns();
  }

  @Test
  public void shouldRejectNullKeyPartsNamingTableAndColumn() {
    schemas.shouldRejectNullKeyPartsNamingTableAndColumn();
  }

  @Test
  public void shouldRejectKeysAndRowsThatDoNotFitTheSchema() {
    schemas.shouldRejectKeysAndRowsThatDoNotFitTheSchema();
  }

  @Test
  public void shouldTreatByteKeysByContent() {
    schemas.shouldTreatByteKeysByContent();
  }

  // ------------------------------------------------------------------ persistence (SchemaCases)

  @Test
  public void shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen() {
    schemas.shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen();
  }

  // ----------------------------------------------------------------- read faults: an unreadable store (ReadFaultCases)

  @Test
  public void shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing() {
    readFaults.shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing();
  }

  @Test
  public void shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable() {
    readFaults.shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable();
  }

  @Test
  public void shouldFailAOneOffLookupWhoseReadFails() {
    readFaults.shouldFailAOneOffLookupWhoseReadFails();
  }

  @Test
  public void shouldNameTheTableOfEachReadToTheReadHook() {
    readFaults.shouldNameTheTableOfEachReadToTheReadHook();
  }

  // ---------------------------------------------------------------- read faults: damaged stored bytes (ReadFaultCases)

  @Test
  public void shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook() {
    readFaults.shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook();
  }

  @Test
  public void shouldRefuseAStoredRowWithAnyBitFlipped() {
    readFaults.shouldRefuseAStoredRowWithAnyBitFlipped();
  }

  @Test
  public void shouldRefuseATruncatedStoredRow() {
    readFaults.shouldRefuseATruncatedStoredRow();
  }

  @Test
  public void shouldRefuseGarbageInPlaceOfAStoredRow() {
    readFaults.shouldRefuseGarbageInPlaceOfAStoredRow();
  }

  // ------------------------------------------------------------- read faults under a pipeline (PipelineReadFaultCases)

  @Test
  public void shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch() {
    pipelineReadFaults.shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch();
  }

  @Test
  public void shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch() {
    pipelineReadFaults.shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch();
  }

  @Test
  public void shouldNotStartOverWhenTheCheckpointCannotBeRead() {
    pipelineReadFaults.shouldNotStartOverWhenTheCheckpointCannotBeRead();
  }

  @Test
  public void shouldNotStartOverWhenTheCheckpointBytesAreDamaged() {
    pipelineReadFaults.shouldNotStartOverWhenTheCheckpointBytesAreDamaged();
  }
}
