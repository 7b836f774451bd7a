package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.state.IBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/** Each case of the {@link BackingMapContract} fails for the defect it exists to catch, and passes without it. */
class BackingMapContractCanFailTest {

  /** One defect of a backing map, and the contract case that must catch it. */
  enum Defect {
    NONE(null),
    PLACEHOLDER_FOR_MISSING_KEYS(BackingMapContract::aMultiGetOfMissingKeysFindsNothing),
    CELLS_BY_POSITION(BackingMapContract::everyKeyGetsItsOwnCellWhateverTheOrderOfTheKeysAskedFor),
    REPEATED_KEYS_SHIFT_CELLS(BackingMapContract::aMultiGetOfRepeatedKeysFindsEachOnce),
    ADDS_INSTEAD_OF_REPLACING(BackingMapContract::aLaterMultiPutOverwritesOnlyItsKeys),
    EMPTY_PUT_CLEARS(BackingMapContract::anEmptyMultiPutChangesNothing),
    KEEPS_THE_CALLERS_MAP(BackingMapContract::theCallersMapsCannotChangeTheStore),
    RETURNS_A_LIVE_VIEW(BackingMapContract::aResultIsASnapshot),
    ACCEPTS_NULLS(BackingMapContract::nullsAreRefused),
    DROPS_CELLS_OF_LARGE_PUTS(BackingMapContract::aLargeCallIsServedWhole),
    RETURNS_A_MODIFIABLE_MAP(BackingMapContract::aMultiPutIsReadBackByMultiGet),
    POSITIONAL_READ_SKIPS_MISSING_KEYS(BackingMapContract::aPositionalReadFindsEachKeysCellAtItsPlace);

    final Consumer<BackingMapContract<String, Long>> caught;

    Defect(Consumer<BackingMapContract<String, Long>> caught) {
      this.caught = caught;
    }
  }

  /** A map of cells with one defect (or none). */
  static final class Broken implements IBackingMap<String, Long> {
    private final Defect defect;
    private Map<String, Long> cells = new HashMap<>();
    private final List<String> order = new ArrayList<>();

    Broken(Defect defect) {
      this.defect = defect;
    }

    @Override
    public Map<String, Long> multiGet(Collection<? extends String> keys) {
      if (defect != Defect.ACCEPTS_NULLS) {
        keys.forEach(k -> java.util.Objects.requireNonNull(k, "key"));
      }
      Map<String, Long> found = new HashMap<>();
      switch (defect) {
        case PLACEHOLDER_FOR_MISSING_KEYS -> keys.forEach(k -> found.put(k, cells.get(k)));
        case CELLS_BY_POSITION -> {
          List<String> present = keys.stream().filter(cells::containsKey).map(k -> (String) k).toList();
          List<String> stored = order.stream().filter(present::contains).toList();
          for (int i = 0; i < present.size(); i++) {
            found.put(present.get(i), cells.get(stored.get(i)));
          }
        }
        case REPEATED_KEYS_SHIFT_CELLS -> {
          List<String> asked = new ArrayList<>(keys);
          List<String> distinct = new ArrayList<>(new LinkedHashSet<>(asked));
          for (int i = 0; i < distinct.size(); i++) {
            Long cell = cells.get(asked.get(i)); // zips the distinct keys with the request's positions
            if (cell != null) {
              found.put(distinct.get(i), cell);
            }
          }
        }
        case RETURNS_A_LIVE_VIEW -> {
          return Collections.unmodifiableMap(cells);
        }
        default -> keys.stream().filter(cells::containsKey).forEach(k -> found.put(k, cells.get(k)));
      }
      return defect == Defect.RETURNS_A_MODIFIABLE_MAP ? found : Collections.unmodifiableMap(found);
    }

    @Override
    public List<Long> multiGetOrdered(List<? extends String> keys) {
      if (defect != Defect.POSITIONAL_READ_SKIPS_MISSING_KEYS) {
        return IBackingMap.super.multiGetOrdered(keys);
      }
      List<Long> found = new ArrayList<>(); // the stored cells only: the ones after a missing key move up
      for (String k : keys) {
        if (cells.containsKey(k)) {
          found.add(cells.get(k));
        }
      }
      while (found.size() < keys.size()) {
        found.add(null);
      }
      return Collections.unmodifiableList(found);
    }

    @Override
    public void multiPut(Map<String, Long> put) {
      if (defect != Defect.ACCEPTS_NULLS) {
        put.forEach((k, v) -> {
          java.util.Objects.requireNonNull(k, "key");
          java.util.Objects.requireNonNull(v, "cell");
        });
      }
      switch (defect) {
        case ADDS_INSTEAD_OF_REPLACING -> put.forEach((k, v) -> cells.merge(k, v, Long::sum));
        case EMPTY_PUT_CLEARS -> {
          if (put.isEmpty()) {
            cells.clear();
          }
          cells.putAll(put);
        }
        case KEEPS_THE_CALLERS_MAP -> {
          put.forEach(cells::put);
          cells = put;
        }
        case DROPS_CELLS_OF_LARGE_PUTS -> put.entrySet().stream().limit(1_000)
            .forEach(e -> cells.put(e.getKey(), e.getValue()));
        default -> cells.putAll(put);
      }
      put.keySet().stream().filter(k -> !order.contains(k)).forEach(order::add);
    }
  }

  static BackingMapContract<String, Long> contractOver(Defect defect) {
    return new BackingMapContractsTest.StringsToLongs() {
      @Override
      protected IBackingMap<String, Long> createMap() {
        return new Broken(defect);
      }
    };
  }

  @ParameterizedTest
  @EnumSource(Defect.class)
  void everyDefectIsCaughtByItsCase(Defect defect) {
    if (defect.caught != null) {
      assertThrows(AssertionFailedError.class, () -> defect.caught.accept(contractOver(defect)), defect::name);
    }
    for (Defect other : Defect.values()) {
      if (other.caught != null && other != defect && defect == Defect.NONE) {
        other.caught.accept(contractOver(Defect.NONE)); // a correct map passes every case
      }
    }
  }
}
