package org.dp4j.accounting.event;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;

/**
 * The events run one after the other (adaptively).
 *
 * @param events the sequence, not empty
 */
public record ComposedEvent(List<DpEvent> events) implements DpEvent {
  public ComposedEvent {
    events = List.copyOf(events);
    checkArgument(!events.isEmpty(), "a composed event needs at least one event");
  }
}
