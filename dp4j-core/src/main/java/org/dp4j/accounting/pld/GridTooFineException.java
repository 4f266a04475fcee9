package org.dp4j.accounting.pld;

import org.dp4j.InvalidSettingException;

/** The grid spacing would need more points than allowed; a coarser spacing (larger error) fits. */
public final class GridTooFineException extends InvalidSettingException {
  private static final long serialVersionUID = 1L;

  GridTooFineException(String message) {
    super(message);
  }
}
