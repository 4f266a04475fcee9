package org.dp4j.io;

import org.dp4j.InvalidSettingException;

/** An output path that cannot be written, or that would overwrite another output or an input. */
public final class OutputPathException extends InvalidSettingException {
  private static final long serialVersionUID = 1L;

  public OutputPathException(String message) {
    super(message);
  }
}
