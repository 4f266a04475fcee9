package org.dp4j.clipping;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.dp4j.InvalidSettingException;

/**
 * What {@link PrivacyValidator} found: the path every layer or vertex of a network takes in per-example clipping,
 * and the reasons (with replacements) for whatever is refused. Immutable.
 */
public final class ValidationReport {
  /**
   * One layer or vertex.
   *
   * @param name how refusals name it, e.g. "layer 2 'lstm'" or "vertex 'merge'"
   * @param type the configuration class, e.g. "LSTM"
   * @param path the path it takes
   * @param detail the rule used, or why it is refused and what to use instead
   */
  public record Entry(String name, String type, LayerPath path, String detail) {
  }

  private final List<Entry> entries;
  private final List<String> networkProblems;

  ValidationReport(List<Entry> entries, List<String> networkProblems) {
    this.entries = List.copyOf(entries);
    this.networkProblems = List.copyOf(networkProblems);
  }

  /** Every layer (or vertex) in network order. */
  public List<Entry> entries() {
    return entries;
  }

  /** The refused entries. */
  public List<Entry> refusals() {
    return entries.stream().filter(e -> e.path() == LayerPath.REFUSED).collect(Collectors.toList());
  }

  /** Problems of the network as a whole (e.g. a frozen layer stopping backprop above trainable ones). */
  public List<String> networkProblems() {
    return networkProblems;
  }

  /** Whether per-example clipping accepts the network. */
  public boolean isSupported() {
    return refusals().isEmpty() && networkProblems.isEmpty();
  }

  /** Whether some layer takes the slow generic path. */
  public boolean usesGenericPath() {
    return entries.stream().anyMatch(e -> e.path() == LayerPath.GENERIC);
  }

  /**
   * @throws IllegalArgumentException listing every refusal (each with its reason and replacement) when the network
   *     is not supported
   */
  public void requireSupported() {
    if (!isSupported()) {
      List<String> lines = new ArrayList<>();
      refusals().forEach(e -> lines.add(e.detail()));
      lines.addAll(networkProblems);
      throw new InvalidSettingException("the network cannot be trained with per-example clipping: "
          + String.join("; ", lines));
    }
  }

  /** A table: one line per layer with its name, type, path and detail, then the network's problems. */
  @Override
  public String toString() {
    int nameWidth = Math.max(5, entries.stream().mapToInt(e -> e.name().length()).max().orElse(0));
    int typeWidth = Math.max(4, entries.stream().mapToInt(e -> e.type().length()).max().orElse(0));
    String format = "%-" + nameWidth + "s  %-" + typeWidth + "s  %-14s  %s%n";
    StringBuilder table = new StringBuilder(String.format(format, "layer", "type", "path", "detail"));
    for (Entry e : entries) {
      table.append(String.format(format, e.name(), e.type(), e.path().label(), e.detail()));
    }
    networkProblems.forEach(p -> table.append("network: ").append(p).append(System.lineSeparator()));
    return table.toString();
  }
}
