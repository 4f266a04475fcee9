package org.dp4j.samples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A report as one line of JSON (the {@code --json} output of a command); a value Jackson cannot write is a bug. */
final class JsonLine {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonLine() {}

  static String of(Object report) {
    try {
      return JSON.writeValueAsString(report);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
