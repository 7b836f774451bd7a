package io.epochal.testkit;

/** Where in a batch's commit protocol a scheduled fault fires. */
public enum FaultPoint {
  /** The state's first read of the batch fails: nothing of the batch has been written. */
  BEFORE_STATE_WRITE,
  /** A backing map's {@code multiPut} writes a prefix of its cells, then fails (between two keys of one put). */
  INSIDE_MULTIPUT,
  /** Every state of the batch is written; the coordinator's checkpoint commit fails before writing anything. */
  AFTER_STATE_WRITES,
  /** The coordinator's checkpoint commit is written, then the call fails: the coordinator cannot know it landed. */
  DURING_CHECKPOINT_COMMIT
}
