package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * {@code event} run {@code count} times, each run may depend on the previous outputs.
 *
 * @param event the repeated mechanism
 * @param count number of runs ≥ 0
 */
public record SelfComposedEvent(DpEvent event, long count) implements DpEvent {
  public SelfComposedEvent {
    checkNotNull(event, "event");
    checkArgument(count >= 0, "composition count must be >= 0, was %s", count);
  }
}
