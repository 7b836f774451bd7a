/**
 * Storm Trident interop. The public types are {@link io.epochal.trident.EpochalTrident} (static factories, with its
 * nested {@code SerializableSupplier}), {@link io.epochal.trident.StormStateBuilder} and
 * {@link io.epochal.trident.RangeEmittedTwiceException}; every adapter behind them is package-private (like Caffeine's
 * {@code CaffeinatedGuava}). Storm ({@code storm-client}) is a provided dependency: the application brings its own.
 * Positional {@code List<Object>} keys exist only in this package. Interop goes in three directions.
 *
 * <h2>1. Their code on our engine</h2>
 * A Trident topology's parts run unchanged in an Epochal {@link io.epochal.pipeline.Pipeline} whose records are
 * {@link TridentTuple}s: spouts ({@link EpochalTrident#spout(String, IBatchSpout)}, {@link EpochalTrident#spout(String, ITridentSpout, SpoutKind)},
 * {@link EpochalTrident#spout(String, IPartitionedTridentSpout)}, {@link EpochalTrident#spout(String, IOpaquePartitionedTridentSpout)}), functions
 * and filters ({@link EpochalTrident#each}, {@link EpochalTrident#filter}), group keys ({@link EpochalTrident#key}), aggregators ({@link EpochalTrident#combiner},
 * {@link EpochalTrident#reducer}), state updaters ({@link EpochalTrident#updater}), query functions ({@link EpochalTrident#stateQuery}) and states: a Trident
 * {@code IBackingMap} under Epochal's maps ({@link EpochalTrident#opaqueState}, {@link EpochalTrident#transactionalState},
 * {@link EpochalTrident#nonTransactionalState}) or a whole Trident {@code StateFactory} ({@link EpochalTrident#tridentState}).
 * <pre>{@code
 * Stream<TridentTuple> sentences =
 *     EpochalTrident.newStream(builder, EpochalTrident.spout("sentences", fixedBatchSpout));
 * sentences.flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")))
 *     .groupBy(EpochalTrident.key(new Fields("word")))
 *     .persistentAggregate("counts", EpochalTrident.opaqueState(myTridentBackingMap),
 *         EpochalTrident.combiner(new Count()));
 * }</pre>
 * Group keys are Trident's positional {@code List<Object>} keys (the values of the grouping fields), exactly what a
 * Trident {@code IBackingMap} receives.
 *
 * <p>Fields are checked as Trident checks them: on a stream whose fields are known ({@link EpochalTrident#newStream},
 * {@link EpochalTrident#withFields}, and the streams {@code each}, {@code filter}, {@code groupBy} and {@link EpochalTrident#stateQuery} derive
 * from them) every {@code Fields} reference of these adapters is refused when the pipeline is built if the stream
 * lacks the field ({@link IllegalArgumentException} naming the field and the available ones, Trident's message). On
 * other streams (after your own {@code map}) the first record lacking it stops the pipeline with a non-retryable
 * {@link io.epochal.errors.InvalidRecordException}; so do tuples emitted with more or fewer values than their
 * operation declared. Operations Storm could not serialize are refused when adapted.
 *
 * <h2>2. Our state on their cluster</h2>
 * Epochal's {@code OpaqueMap} and {@code TransactionalMap} over a table of any Epochal {@link TableStore}
 * ({@link EpochalTrident#stormState(String, SerializableSupplier, String)}) or over any Epochal {@link IBackingMap}
 * ({@link EpochalTrident#stormOpaqueState}, {@link EpochalTrident#stormTransactionalState}), as Trident {@code StateFactory}s for
 * {@code persistentAggregate}, {@code partitionPersist} and {@code stateQuery} of a real {@code TridentTopology}.
 *
 * <h2>3. Their data</h2>
 * Codecs of Trident's JSON cell layouts ({@link EpochalTrident#opaqueJsonCodec()}, {@link EpochalTrident#transactionalJsonCodec()},
 * {@link EpochalTrident#jsonValueCodec()}), a byte-store adapter ({@link EpochalTrident#encoded}), the key mapping of Trident keys to a table
 * ({@link EpochalTrident#keyCodec()}), txid continuation for stores Trident wrote ({@link EpochalTrident#continueAfter}), and a Long-safe drop-in
 * for Storm's JSON serializers ({@link EpochalTrident#longSafeSerializer}).
 *
 * <h2>Semantics and where Epochal is stricter</h2>
 * Map states follow Trident's cell rules (opaque {@code [txid, curr, prev]}: replay from {@code prev}; transactional
 * {@code [txid, val]}: skip a replayed key), except: a stored txid ahead of the batch throws
 * {@link io.epochal.errors.StateAheadException} for the transactional map too (Trident silently re-bases the value);
 * null values are refused (a Trident store's removal cells keep Trident's rules, see {@link EpochalTrident#opaqueState}); updates
 * from a non-transactional stream (no txid) are refused; duplicate keys in one call
 * are applied in order; integral numbers read back from Trident stores are {@code Long}. The pipeline builder refuses
 * pairings that are not exactly-once (an opaque spout with an opaque map on the per-key protocol, which Trident
 * accepts). Each adapter's Javadoc states what it does with Trident's lifecycle calls.
 *
 */
package io.epochal.trident;

import io.epochal.pipeline.Stream;
import io.epochal.spout.SpoutKind;
import io.epochal.state.IBackingMap;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Map;
import org.apache.storm.trident.spout.IBatchSpout;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.IPartitionedTridentSpout;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
