/**
 * API stability markers: {@link io.epochal.api.Stable}, {@link io.epochal.api.Evolving},
 * {@link io.epochal.api.Experimental}. Each public type of every library module carries exactly one.
 */
package io.epochal.api;
