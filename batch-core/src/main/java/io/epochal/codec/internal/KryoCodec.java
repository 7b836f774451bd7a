package io.epochal.codec.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import com.esotericsoftware.kryo.serializers.TimeSerializers;
import com.esotericsoftware.kryo.util.Pool;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.codec.Codecs;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kryo-backed {@link Codec}; create it with {@link Codecs#kryo(Class...)}. Internal: the constructor is public only
 * because {@link Codecs} lives in another package.
 *
 * <p>Format: Kryo 5 {@code writeClassAndObject} with registration required, references off, JDK types under the
 * fixed ids of {@link #registerJdkTypes(Kryo)} and user classes from {@value #FIRST_USER_ID} on, in the order
 * given. Bytes decode in any JVM that builds the codec with the same classes in the same order (same
 * {@link #id()}); they are byte-identical across JVMs unless a value iterates in a JVM-dependent order
 * ({@code Set.of}, {@code Map.of}, hash collections of identity-hashed objects).
 *
 * <p>Thread-safe: each call borrows a Kryo instance with its buffers from a pool owned by this codec (no
 * thread-locals, no static mutable state); instances involved in a failure are dropped, not reused. Decoding never
 * returns a wrong value: garbage, truncated or trailing bytes, unknown class ids and declared lengths larger than
 * the input all throw {@link CodecException}. Object graphs nested deeper than {@value #MAX_DEPTH} levels are
 * rejected, which also bounds the recursion a corrupted input can cause.
 *
 * @param <T> the value type
 */
public final class KryoCodec<T> implements Codec<T> {

  /** Kryo id of the first user class; ids below it are reserved for JDK types. */
  public static final int FIRST_USER_ID = 100;
  /** Maximum nesting depth of an encoded object graph. */
  public static final int MAX_DEPTH = 512;

  private static final int INITIAL_BUFFER = 256;
  /** Output buffers grown beyond this are not kept in the pool. */
  private static final int MAX_RETAINED_BUFFER = 64 * 1024;
  private static final byte[] EMPTY = new byte[0];

  private final List<Class<?>> userClasses;
  private final boolean registrationRequired;
  private final String id;
  private final Pool<Worker> pool;

  /**
   * Builds the codec. Prefer {@link Codecs#kryo(Class...)}.
   *
   * @param registered user classes in registration order; pre-registered JDK types are ignored
   * @throws IllegalArgumentException if a class is listed twice or Kryo cannot build a serializer for it
   * @throws NullPointerException if {@code registered} or an element is {@code null}
   */
  public KryoCodec(Class<?>... registered) {
    this(true, registered);
  }

  /**
   * A Kryo codec that writes the class name of every value not pre-registered instead of requiring registration: its
   * bytes decode only where the same classes exist (the same build of an application, across its restarts), which
   * is what an in-memory test sink's outbox needs, and never what stored state needs. Id
   * {@code "kryo:unregistered:v1"}.
   *
   * @param <T> the type of the values
   * @return a new codec that needs no registration
   */
  public static <T> KryoCodec<T> unregistered() {
    return new KryoCodec<>(false);
  }

  private KryoCodec(boolean registrationRequired, Class<?>... registered) {
    Objects.requireNonNull(registered, "registered");
    this.registrationRequired = registrationRequired;
    Kryo probe = newJdkKryo();
    List<Class<?>> user = new ArrayList<>();
    Set<Class<?>> seen = new HashSet<>();
    for (Class<?> c : registered) {
      Objects.requireNonNull(c, "registered class");
      if (!seen.add(c)) {
        throw new IllegalArgumentException("Class " + c.getName() + " is listed twice in Codecs.kryo(...)");
      }
      if (probe.getClassResolver().getRegistration(c) == null) {
        user.add(c);
      }
    }
    this.userClasses = List.copyOf(user);
    StringBuilder sb = new StringBuilder(registrationRequired ? "kryo:v1:" : "kryo:unregistered:v1");
    for (int i = 0; i < userClasses.size(); i++) {
      sb.append(i == 0 ? "" : ",").append(userClasses.get(i).getName());
    }
    this.id = sb.toString();
    int capacity = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
    this.pool = new Pool<>(true, false, capacity) {
      @Override
      protected Worker create() {
        return new Worker(newKryo());
      }
    };
    pool.free(new Worker(registerUserClasses(probe))); // fail fast on a class Kryo cannot register
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    Worker w = pool.obtain();
    byte[] result;
    try {
      w.output.reset();
      w.kryo.writeClassAndObject(w.output, value);
      result = w.output.toBytes();
    } catch (RuntimeException e) {
      throw new CodecException(encodeFailure(value, e), e); // w is dropped: its state is unknown
    }
    if (w.output.getBuffer().length > MAX_RETAINED_BUFFER) {
      w.output = new Output(INITIAL_BUFFER, -1);
    }
    pool.free(w);
    return result;
  }

  @Override
  @SuppressWarnings("unchecked")
  public T decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    Worker w = pool.obtain();
    Object value;
    int consumed;
    try {
      w.input.setBuffer(bytes);
      value = w.kryo.readClassAndObject(w.input);
      consumed = w.input.position();
    } catch (RuntimeException e) {
      throw new CodecException("Cannot decode " + bytes.length + " bytes with codec " + id + ": " + e.getMessage(), e);
    }
    w.input.setBuffer(EMPTY);
    pool.free(w);
    if (value == null) {
      throw new CodecException("Cannot decode " + bytes.length + " bytes with codec " + id
          + ": they encode null, which this codec never writes");
    }
    if (consumed != bytes.length) {
      throw new CodecException("Cannot decode " + bytes.length + " bytes with codec " + id + ": a value of type "
          + value.getClass().getName() + " ends at byte " + consumed + ", followed by " + (bytes.length - consumed)
          + " unexpected bytes");
    }
    return (T) value;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String toString() {
    return "KryoCodec[" + id + "]";
  }

  private String encodeFailure(Object value, RuntimeException e) {
    String message = String.valueOf(e.getMessage());
    if (message.startsWith("Class is not registered:")) {
      String cls = message.substring("Class is not registered:".length()).split("\n", 2)[0].trim();
      return "Cannot encode a value of type " + value.getClass().getName() + " with codec " + id + ": class " + cls
          + " is not registered. Pass it to Codecs.kryo(...) (registration is required so that the encoding is"
          + " stable across JVMs); its position in the list fixes its id, so append new classes at the end.";
    }
    return "Cannot encode a value of type " + value.getClass().getName() + " with codec " + id + ": " + message;
  }

  private Kryo newKryo() {
    return registerUserClasses(newJdkKryo());
  }

  private Kryo registerUserClasses(Kryo kryo) {
    for (int i = 0; i < userClasses.size(); i++) {
      Class<?> type = userClasses.get(i);
      try {
        kryo.register(type, FIRST_USER_ID + i);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("Kryo cannot serialize " + type.getName() + ": " + e.getMessage(), e);
      }
    }
    return kryo;
  }

  private Kryo newJdkKryo() {
    Kryo kryo = new Kryo();
    kryo.setRegistrationRequired(registrationRequired);
    kryo.setReferences(false);
    kryo.setMaxDepth(MAX_DEPTH);
    registerJdkTypes(kryo);
    return kryo;
  }

  /**
   * Registers the JDK types under fixed ids. Kryo itself registers ids 0-9 (primitives and their wrappers, String,
   * void). Append only: never change or reuse an id, or stored state stops decoding.
   */
  private static void registerJdkTypes(Kryo kryo) {
    kryo.register(byte[].class, new DefaultArraySerializers.ByteArraySerializer(), 10);
    kryo.register(char[].class, new DefaultArraySerializers.CharArraySerializer(), 11);
    kryo.register(short[].class, new DefaultArraySerializers.ShortArraySerializer(), 12);
    kryo.register(int[].class, new DefaultArraySerializers.IntArraySerializer(), 13);
    kryo.register(long[].class, new DefaultArraySerializers.LongArraySerializer(), 14);
    kryo.register(float[].class, new DefaultArraySerializers.FloatArraySerializer(), 15);
    kryo.register(double[].class, new DefaultArraySerializers.DoubleArraySerializer(), 16);
    kryo.register(boolean[].class, new DefaultArraySerializers.BooleanArraySerializer(), 17);
    kryo.register(String[].class, new BoundedStringArraySerializer(), 18);
    kryo.register(Object[].class, new BoundedObjectArraySerializer(kryo), 19);
    kryo.register(ArrayList.class, new BoundedCollectionSerializer<>(), 20);
    kryo.register(LinkedList.class, new BoundedCollectionSerializer<>(), 21);
    kryo.register(HashSet.class, new BoundedCollectionSerializer<>(), 22);
    kryo.register(LinkedHashSet.class, new BoundedCollectionSerializer<>(), 23);
    kryo.register(TreeSet.class, new DefaultSerializers.TreeSetSerializer(), 24);
    kryo.register(HashMap.class, new MapSerializer<>(), 25);
    kryo.register(LinkedHashMap.class, new MapSerializer<>(), 26);
    kryo.register(TreeMap.class, new DefaultSerializers.TreeMapSerializer(), 27);
    kryo.register(List.of().getClass(), new ImmutableListSerializer(), 28);
    kryo.register(List.of(1).getClass(), new ImmutableListSerializer(), 29);
    kryo.register(Set.of().getClass(), new ImmutableSetSerializer(), 30);
    kryo.register(Set.of(1).getClass(), new ImmutableSetSerializer(), 31);
    kryo.register(Map.of().getClass(), new ImmutableMapSerializer(), 32);
    kryo.register(Map.of(1, 1).getClass(), new ImmutableMapSerializer(), 33);
    kryo.register(Collections.emptyList().getClass(), new DefaultSerializers.CollectionsEmptyListSerializer(), 34);
    kryo.register(Collections.emptySet().getClass(), new DefaultSerializers.CollectionsEmptySetSerializer(), 35);
    kryo.register(Collections.emptyMap().getClass(), new DefaultSerializers.CollectionsEmptyMapSerializer(), 36);
    kryo.register(Collections.singletonList(1).getClass(),
        new DefaultSerializers.CollectionsSingletonListSerializer(), 37);
    kryo.register(Collections.singleton(1).getClass(), new DefaultSerializers.CollectionsSingletonSetSerializer(), 38);
    kryo.register(Collections.singletonMap(1, 1).getClass(),
        new DefaultSerializers.CollectionsSingletonMapSerializer(), 39);
    kryo.register(BigInteger.class, new DefaultSerializers.BigIntegerSerializer(), 40);
    kryo.register(BigDecimal.class, new DefaultSerializers.BigDecimalSerializer(), 41);
    kryo.register(UUID.class, new DefaultSerializers.UUIDSerializer(), 42);
    kryo.register(Instant.class, new TimeSerializers.InstantSerializer(), 43);
    kryo.register(Duration.class, new TimeSerializers.DurationSerializer(), 44);
    kryo.register(LocalDate.class, new TimeSerializers.LocalDateSerializer(), 45);
    kryo.register(LocalTime.class, new TimeSerializers.LocalTimeSerializer(), 46);
    kryo.register(LocalDateTime.class, new TimeSerializers.LocalDateTimeSerializer(), 47);
  }

  /** One pooled Kryo with its buffers; used by one thread at a time. */
  private static final class Worker {
    final Kryo kryo;
    Output output = new Output(INITIAL_BUFFER, -1);
    final GuardedInput input = new GuardedInput();

    Worker(Kryo kryo) {
      this.kryo = kryo;
    }
  }

  /** Throws if {@code count} elements of at least {@code minBytes} each cannot fit in the rest of the input. */
  static void requireAvailable(Input input, long count, int minBytes) {
    long available = input.limit() - input.position();
    if (count < 0 || count * minBytes > available) {
      throw new KryoException("Declared length " + count + " needs at least " + count * minBytes
          + " bytes but only " + available + " remain");
    }
  }

  /**
   * Input over a byte array that checks every declared array and string length against the bytes that remain
   * before allocating, so a corrupted length fails fast instead of exhausting the heap.
   */
  static final class GuardedInput extends Input {

    @Override
    public byte[] readBytes(int length) {
      requireAvailable(this, length, 1);
      return super.readBytes(length);
    }

    @Override
    public int[] readInts(int length, boolean optimizePositive) {
      requireAvailable(this, length, varEncoding ? 1 : 4);
      return super.readInts(length, optimizePositive);
    }

    @Override
    public int[] readInts(int length) {
      requireAvailable(this, length, 4);
      return super.readInts(length);
    }

    @Override
    public long[] readLongs(int length, boolean optimizePositive) {
      requireAvailable(this, length, varEncoding ? 1 : 8);
      return super.readLongs(length, optimizePositive);
    }

    @Override
    public long[] readLongs(int length) {
      requireAvailable(this, length, 8);
      return super.readLongs(length);
    }

    @Override
    public float[] readFloats(int length) {
      requireAvailable(this, length, 4);
      return super.readFloats(length);
    }

    @Override
    public double[] readDoubles(int length) {
      requireAvailable(this, length, 8);
      return super.readDoubles(length);
    }

    @Override
    public short[] readShorts(int length) {
      requireAvailable(this, length, 2);
      return super.readShorts(length);
    }

    @Override
    public char[] readChars(int length) {
      requireAvailable(this, length, 2);
      return super.readChars(length);
    }

    @Override
    public boolean[] readBooleans(int length) {
      requireAvailable(this, length, 1);
      return super.readBooleans(length);
    }

    @Override
    public String readString() {
      checkUtf8Length();
      return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
      checkUtf8Length();
      return super.readStringBuilder();
    }

    /** A UTF-8 string starts with its char count + 1; each char takes at least one byte. */
    private void checkUtf8Length() {
      int start = position;
      if (start < limit && (buffer[start] & 0x80) != 0) {
        int countPlusOne = readVarIntFlag(true);
        position = start;
        if (countPlusOne > 1) {
          requireAvailable(this, countPlusOne - 1L, 1);
        }
      }
    }
  }

  /** Peeks the varint length (+1, 0 = null) that starts an array and checks it against the remaining bytes. */
  private static void checkArrayLength(Input input) {
    int start = input.position();
    int lengthPlusOne = input.readVarInt(true);
    input.setPosition(start);
    if (lengthPlusOne > 1) {
      requireAvailable(input, lengthPlusOne - 1L, 1);
    }
  }

  /** {@code String[]}: every element takes at least one byte. */
  static final class BoundedStringArraySerializer extends DefaultArraySerializers.StringArraySerializer {
    @Override
    @SuppressWarnings("rawtypes") // the Kryo superclass declares a raw Class parameter
    public String[] read(Kryo kryo, Input input, Class type) {
      checkArrayLength(input);
      return super.read(kryo, input, type);
    }
  }

  /** {@code Object[]}: every element is written with its class (or a null marker), so takes at least one byte. */
  static final class BoundedObjectArraySerializer extends DefaultArraySerializers.ObjectArraySerializer {
    BoundedObjectArraySerializer(Kryo kryo) {
      super(kryo, Object[].class);
    }

    @Override
    @SuppressWarnings("rawtypes") // the Kryo superclass declares a raw Class parameter
    public Object[] read(Kryo kryo, Input input, Class type) {
      checkArrayLength(input);
      return super.read(kryo, input, type);
    }
  }

  /** Caps the capacity pre-allocated for a declared size at the number of bytes left (never rejects). */
  private static int cappedCapacity(Input input, int size) {
    return Math.max(0, Math.min(size, input.limit() - input.position()));
  }

  /** Collection serializer that does not pre-allocate more than the remaining input could fill. */
  static class BoundedCollectionSerializer<C extends Collection<Object>> extends CollectionSerializer<C> {
    @Override
    protected C create(Kryo kryo, Input input, Class<? extends C> type, int size) {
      return super.create(kryo, input, type, cappedCapacity(input, size));
    }
  }

  /** {@code List.of(...)} / {@code Stream.toList()} lists; decoded as an unmodifiable JDK list. */
  static final class ImmutableListSerializer extends CollectionSerializer<List<Object>> {
    ImmutableListSerializer() {
      setElementsCanBeNull(true); // Stream.toList() allows nulls
    }

    @Override
    protected List<Object> create(Kryo kryo, Input input, Class<? extends List<Object>> type, int size) {
      return new ArrayList<>(cappedCapacity(input, size));
    }

    @Override
    public List<Object> read(Kryo kryo, Input input, Class<? extends List<Object>> type) {
      List<Object> list = super.read(kryo, input, type);
      return list.contains(null) ? list.stream().toList() : List.copyOf(list);
    }

    @Override
    public List<Object> copy(Kryo kryo, List<Object> original) {
      return original;
    }
  }

  /** {@code Set.of(...)} sets; duplicates in the input are rejected. */
  static final class ImmutableSetSerializer extends CollectionSerializer<Collection<Object>> {
    @Override
    protected Collection<Object> create(Kryo kryo, Input input, Class<? extends Collection<Object>> type, int size) {
      return new ArrayList<>(cappedCapacity(input, size));
    }

    @Override
    public Collection<Object> read(Kryo kryo, Input input, Class<? extends Collection<Object>> type) {
      return Set.of(super.read(kryo, input, type).toArray());
    }

    @Override
    public Collection<Object> copy(Kryo kryo, Collection<Object> original) {
      return original;
    }
  }

  /** {@code Map.of(...)} maps. */
  static final class ImmutableMapSerializer extends MapSerializer<Map<Object, Object>> {
    @Override
    protected Map<Object, Object> create(Kryo kryo, Input input, Class<? extends Map<Object, Object>> type, int size) {
      return new HashMap<>();
    }

    @Override
    public Map<Object, Object> read(Kryo kryo, Input input, Class<? extends Map<Object, Object>> type) {
      Map<Object, Object> map = super.read(kryo, input, type);
      return Map.copyOf(map);
    }

    @Override
    public Map<Object, Object> copy(Kryo kryo, Map<Object, Object> original) {
      return original;
    }
  }
}
