package io.epochal.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A public type whose signatures and documented behaviour change only in a major release: removals and incompatible changes are announced by {@code @Deprecated} at least one minor release before.
 *
 * <p>Every public type outside an {@code .internal} package carries exactly one of {@link Stable}, {@link Evolving}
 * and {@link Experimental} (the architecture tests check it). Recorded in class files, not visible at run time.
 *
 * @since 0.1.0
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
@Stable
public @interface Stable {
}
