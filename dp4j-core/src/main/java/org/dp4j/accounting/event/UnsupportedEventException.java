package org.dp4j.accounting.event;

import org.dp4j.InvalidSettingException;

/** An accountant was given an event it has no theorem for; the message says which and why. */
public final class UnsupportedEventException extends InvalidSettingException {
  private static final long serialVersionUID = 1L;

  public UnsupportedEventException(String accountant, DpEvent event, String reason) {
    super(accountant + " cannot account for " + event + ": " + reason);
  }
}
