package io.epochal.spouts.kafka;
