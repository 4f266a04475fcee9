package org.dp4j.listeners;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.deeplearning4j.optimize.api.TrainingListener;

/**
 * Finds listeners that release intermediate parameters or metrics computed on private data during
 * training. Any of them voids hidden-state (last-iterate) accounting, which assumes that only the final
 * model leaves the trainer (docs/threat-models.md#what-voids-hidden-state); composition bounds stay valid.
 *
 * <p>Known leaks are matched by class name so that optional modules (DL4J UI's {@code StatsListener})
 * need not be on the classpath. Listeners this class does not know are reported separately: dp4j cannot
 * tell what they do.
 */
public final class HiddenStateLeakDetector {
  /**
   * DL4J listeners that write checkpoints, evaluate, or report training-set scores; dp4j's listener that averages
   * the iterates.
   */
  private static final Set<String> LEAKING = Set.of(
      "org.deeplearning4j.optimize.listeners.CheckpointListener",
      "org.deeplearning4j.optimize.listeners.EvaluativeListener",
      "org.deeplearning4j.optimize.listeners.ScoreIterationListener",
      "org.deeplearning4j.optimize.listeners.CollectScoresListener",
      "org.deeplearning4j.optimize.listeners.CollectScoresIterationListener",
      "org.deeplearning4j.optimize.listeners.PerformanceListener",
      "org.deeplearning4j.optimize.listeners.ComposableIterationListener",
      "org.deeplearning4j.ui.model.stats.StatsListener",
      "org.deeplearning4j.ui.model.stats.J7StatsListener",
      "org.deeplearning4j.earlystopping.listener.EarlyStoppingListener",
      "org.dp4j.listeners.ParameterAverageListener");

  /** Listeners that see nothing derived from parameters or private data. */
  private static final Set<String> HARMLESS = Set.of(
      "org.deeplearning4j.optimize.listeners.TimeIterationListener",
      "org.deeplearning4j.optimize.listeners.SleepyTrainingListener");

  private HiddenStateLeakDetector() {}

  /** What the inspection found. */
  public record Findings(List<String> leaking, List<String> unknown) {
    public boolean voidsHiddenState() {
      return !leaking.isEmpty();
    }
  }

  public static Findings inspect(Collection<TrainingListener> listeners) {
    List<String> leaking = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (TrainingListener l : listeners) {
      String name = l.getClass().getName();
      if (LEAKING.contains(name)) {   // first: dp4j's own ParameterAverageListener releases an average of iterates
        leaking.add(l.getClass().getSimpleName());
      } else if (!(l instanceof PrivacyLedgerListener || HARMLESS.contains(name) || name.startsWith("org.dp4j."))) {
        unknown.add(name);
      }
    }
    return new Findings(List.copyOf(leaking), List.copyOf(unknown));
  }
}
