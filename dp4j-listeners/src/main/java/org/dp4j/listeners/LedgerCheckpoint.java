package org.dp4j.listeners;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * Saves the privacy ledger inside the DL4J model file and restores it, so that resuming continues the
 * ledger exactly and a crash between epochs loses no accounting.
 *
 * <pre>{@code
 * LedgerCheckpoint.save(net, ledger, file, false);          // mid-training: voids hidden-state bounds
 * MultiLayerNetwork resumed = LedgerCheckpoint.restore(file, freshLedgerWithSameMechanism);
 * }</pre>
 *
 * <p>A checkpoint written while training goes on is an intermediate model leaving the trainer:
 * hidden-state (last-iterate) bounds no longer apply from then on and the ledger says so. Only the
 * final save ({@code trainingFinished = true}) keeps them.
 */
public final class LedgerCheckpoint {
  static final String KEY = "dp4j-privacy-ledger";

  private LedgerCheckpoint() {}

  /** Writes the model (with updater state) and the ledger state to {@code file}. */
  public static void save(MultiLayerNetwork net, PrivacyLedger ledger, File file, boolean trainingFinished) {
    if (!trainingFinished) {
      ledger.voidHiddenState("a model checkpoint was written during training after " + ledger.steps()
          + " updates (" + file.getName() + ")");
    }
    try {
      ModelSerializer.writeModel(net, file, true);
      ModelSerializer.addObjectToFile(file, KEY, ledger.state());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write checkpoint " + file, e);
    }
  }

  /** The ledger state stored in a model file. */
  public static PrivacyLedger.State readState(File file) {
    try {
      PrivacyLedger.State state = ModelSerializer.getObjectFromFile(file, KEY);
      if (state == null) {
        throw new IllegalArgumentException("model file " + file + " holds no dp4j privacy ledger");
      }
      return state;
    } catch (RuntimeException e) {
      if (e instanceof IllegalArgumentException) {
        throw e;
      }
      throw new IllegalArgumentException("model file " + file + " holds no readable dp4j privacy ledger: "
          + e.getMessage(), e);
    }
  }

  /**
   * Restores the network and replays the saved ledger into {@code freshLedger}, which must describe
   * the same mechanism, δ and budget (otherwise resuming is refused).
   */
  public static MultiLayerNetwork restore(File file, PrivacyLedger freshLedger) {
    PrivacyLedger.State state = readState(file);
    freshLedger.restore(state);
    try {
      return ModelSerializer.restoreMultiLayerNetwork(file, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read model " + file, e);
    }
  }
}
