package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The public API of {@code io.epochal.store.ytsaurus} names no {@code .internal} type (style §5.2). */
class YtApiBoundaryTest {

  @Test
  void shouldNotExposeInternalTypesInPublicSignatures() {
    List<Class<?>> api = List.of(YtTableStore.class, YtTableStore.Builder.class, YtMode.class, YtError.class,
        YtException.class, YtTransactionLostException.class, YtTabletNotMountedException.class,
        YtCommitOutcomeUnknownException.class);
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : api) {
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers())) {
          check(leaks, c + "." + m.getName(), m.getGenericReturnType());
          for (Type p : m.getGenericParameterTypes()) {
            check(leaks, c + "." + m.getName(), p);
          }
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (Modifier.isPublic(k.getModifiers())) {
          for (Type p : k.getGenericParameterTypes()) {
            check(leaks, c + ".<init>", p);
          }
        }
      }
    }
    assertEquals(List.of(), leaks);
  }

  private static void check(List<String> leaks, String where, Type type) {
    if (type.getTypeName().contains(".internal.")) {
      leaks.add(where + " names " + type.getTypeName());
    }
  }
}
