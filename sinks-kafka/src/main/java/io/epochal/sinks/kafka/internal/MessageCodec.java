package io.epochal.sinks.kafka.internal;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.sinks.kafka.KafkaOutput.Header;
import io.epochal.sinks.kafka.KafkaOutput.Message;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The outbox codec of the Kafka sink's records (format {@code kafka-message:v1}): partition (-1 for none), key and
 * value as length-prefixed bytes (-1 for absent), then the headers. Rejects truncated and trailing bytes. Stateless,
 * thread-safe.
 */
public final class MessageCodec implements Codec<Message> {
  /** The codec. */
  public static final MessageCodec INSTANCE = new MessageCodec();

  private MessageCodec() {
  }

  @Override
  public byte[] encode(Message m) {
    Objects.requireNonNull(m, "message");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(m.partition().orElse(-1));
      writeBytes(out, m.key());
      writeBytes(out, m.value());
      out.writeInt(m.headers().size());
      for (Header h : m.headers()) {
        out.writeUTF(h.key());
        writeBytes(out, h.value());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  @Override
  public Message decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int partition = in.readInt();
      if (partition < -1) {
        throw new CodecException("bad partition " + partition);
      }
      Optional<byte[]> key = readBytes(in);
      Optional<byte[]> value = readBytes(in);
      int n = in.readInt();
      if (n < 0 || n > bytes.length) {
        throw new CodecException("bad header count " + n);
      }
      List<Header> headers = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        headers.add(new Header(in.readUTF(), readBytes(in)));
      }
      if (in.available() != 0) {
        throw new CodecException(in.available() + " trailing bytes in a Kafka message");
      }
      return new Message(partition < 0 ? OptionalInt.empty() : OptionalInt.of(partition), key, value, headers);
    } catch (IOException e) {
      throw new CodecException("truncated Kafka message: " + e, e);
    }
  }

  @Override
  public String id() {
    return "kafka-message:v1";
  }

  private static void writeBytes(DataOutputStream out, Optional<byte[]> b) throws IOException {
    if (b.isEmpty()) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.get().length);
      out.write(b.get());
    }
  }

  private static Optional<byte[]> readBytes(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len == -1) {
      return Optional.empty();
    }
    if (len < 0 || len > in.available()) {
      throw new CodecException("bad length " + len);
    }
    byte[] b = new byte[len];
    in.readFully(b);
    return Optional.of(b);
  }
}
