/**
 * The engine behind {@link io.epochal.pipeline.Pipeline}: the declared graph ({@link io.epochal.pipeline.internal.Node}),
 * its typed stream views, and the coordinator ({@link io.epochal.pipeline.internal.Coordinator}), the batch executor, the spout wrapper and the guarantee check. Not API: may change
 * in any release.
 */
package io.epochal.pipeline.internal;
