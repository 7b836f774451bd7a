package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the table-store contract against a user's store with one annotation: put it on a method that returns the
 * {@link TableStoreContractSuite} of the store, and JUnit 5 runs every contract test and replay check as a dynamic
 * test (a JUnit {@link TestFactory}).
 *
 * <pre>{@code
 * class MyTableStoreContractTest {
 *   @TableStoreContractTest
 *   TableStoreContractSuite contract() {
 *     return TableStoreContractSuite.of((dir, commit, read) -> MyTableStore.open(dir, commit, read));
 *   }
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestFactory
@Evolving
public @interface TableStoreContractTest {
}
