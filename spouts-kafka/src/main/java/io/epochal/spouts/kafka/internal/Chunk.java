package io.epochal.spouts.kafka.internal;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What one read of a partition returned: the records with offsets in {@code [from, next)}, in offset order.
 * {@code from} is where the read started (after an out-of-range reset, not where it was asked to); {@code next} is
 * the position after them, which may lie past the last record's offset + 1 (gaps: compaction, aborted records,
 * transaction markers).
 */
record Chunk(long from, long next, List<ConsumerRecord<byte[], byte[]>> records, long bytes) {
}
