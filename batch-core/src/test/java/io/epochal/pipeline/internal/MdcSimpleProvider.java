package io.epochal.pipeline.internal;

import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;

/**
 * slf4j-simple with a real MDC (slf4j-simple's own MDC adapter keeps nothing), so tests can observe what the engine
 * puts in the MDC; selected by the {@code slf4j.provider} system property in this module's surefire setup.
 */
public final class MdcSimpleProvider extends SimpleServiceProvider {
  private final MDCAdapter mdc = new BasicMDCAdapter();

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }
}
