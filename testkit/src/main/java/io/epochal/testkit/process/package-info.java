/**
 * Crash tests with real processes: {@link io.epochal.testkit.process.ChildJvm} (a child JVM a test can SIGKILL) and
 * {@link io.epochal.testkit.process.CrashWordCount} (a word-count worker over any table store, its exact checker and
 * the SIGKILL loop), shared by the store modules' crash and fencing tests.
 */
package io.epochal.testkit.process;
