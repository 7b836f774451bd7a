/**
 * Runnable examples: an exactly-once word count and banner counters (shows and clicks per banner, with a click→show
 * lookup join), with a CLI ({@link io.epochal.examples.Main}) that injects failures and verifies the final counts.
 */
package io.epochal.examples;
