package org.dp4j.listeners;

import org.dp4j.InvalidSettingException;

/**
 * A checkpoint that dp4j refuses to resume from: not a dp4j checkpoint, an unreadable or malformed ledger, a
 * ledger that does not belong to the model stored beside it, or a ledger of another mechanism. The message says
 * which and what to do instead.
 */
public final class InvalidCheckpointException extends InvalidSettingException {
  private static final long serialVersionUID = 1L;

  public InvalidCheckpointException(String message) {
    super(message);
  }

  public InvalidCheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
