package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.cache.CacheRegion;
import io.epochal.cache.CacheStats;
import io.epochal.cache.StateCache;
import io.epochal.cache.Ticker;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The public signatures of io.epochal.flow and io.epochal.cache name no type of an {@code internal} package. */
class ApiSurfaceTest {
  private static final List<Class<?>> API = List.of(Flow.class, FlowStates.class, FlowStates.Builder.class,
      KeyedProcessor.class, ProcessorContext.class, Emitter.class, StateClient.class, StateAccessor.class,
      JoinedStateClient.class, JoinedStateAccessor.class, StateSpec.class, StateSpec.Builder.class, JoinSpec.class,
      JoinSpec.Builder.class, StateCache.class, StateCache.Builder.class, StateCache.RegionBuilder.class,
      CacheRegion.class, CacheStats.class, CacheStats.Level.class, Ticker.class,
      TimerPartitionsChangedException.class, WatermarkStrategy.class, WatermarkStrategy.Builder.class,
      WatermarkStrategy.LatePolicy.class, EventTimeProgress.class, StateTtl.class, DelaySpec.class);

  @Test
  void shouldNameNoInternalTypeInPublicSignatures() {
    List<String> leaks = new ArrayList<>();
    for (Class<?> type : API) {
      for (Method m : type.getDeclaredMethods()) {
        if (visible(m.getModifiers())) {
          check(type, m, m.getGenericReturnType(), leaks);
          checkParameters(type, m, leaks);
        }
      }
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (visible(c.getModifiers())) {
          checkParameters(type, c, leaks);
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (visible(f.getModifiers())) {
          check(type, f, f.getGenericType(), leaks);
        }
      }
      for (Type t : type.getGenericInterfaces()) {
        check(type, type, t, leaks);
      }
    }
    assertEquals(List.of(), leaks);
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static void checkParameters(Class<?> type, Executable e, List<String> leaks) {
    for (Type p : e.getGenericParameterTypes()) {
      check(type, e, p, leaks);
    }
    for (Type x : e.getGenericExceptionTypes()) {
      check(type, e, x, leaks);
    }
  }

  private static void check(Class<?> type, Object member, Type t, List<String> leaks) {
    if (t.getTypeName().contains(".internal.")) {
      leaks.add(type.getSimpleName() + ": " + member + " names " + t.getTypeName());
    }
  }
}
