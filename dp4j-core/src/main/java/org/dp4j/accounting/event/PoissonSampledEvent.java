package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * Each record enters the input of {@code event} independently with probability q (Poisson sampling).
 *
 * @param samplingRate q in (0, 1]
 * @param event the mechanism applied to the sample
 */
public record PoissonSampledEvent(double samplingRate, DpEvent event) implements DpEvent {
  public PoissonSampledEvent {
    checkArgument(samplingRate > 0 && samplingRate <= 1, "sampling rate q must be in (0, 1], was %s", samplingRate);
    checkNotNull(event, "event");
  }
}
