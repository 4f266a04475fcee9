package org.dp4j.data;

import java.io.IOException;
import java.nio.file.Path;

/** A data file that is missing or corrupt; the message names the file and the problem. */
public final class DataFileException extends IOException {
  private final transient Path file;

  public DataFileException(Path file, String problem) {
    super(file + ": " + problem);
    this.file = file;
  }

  public DataFileException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
    this.file = file;
  }

  /** The offending file. */
  public Path file() {
    return file;
  }
}
