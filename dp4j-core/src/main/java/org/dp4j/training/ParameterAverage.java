package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.function.Supplier;
import org.deeplearning4j.nn.api.Model;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * An exponential moving average of the parameters of a training run (Polyak–Ruppert averaging with exponential
 * weights), which De et al. 2022 ("Unlocking high-accuracy differentially private image classification through
 * scale", Sec. 3) use to evaluate DP-SGD. It starts at the parameters θ₀ it is given and, after optimizer step
 * t = 1, 2, …, sets {@code avg ← β_t·avg + (1 − β_t)·θ_t}, with β_t = β, or with the warm-up
 * β_t = min(β, t/(9 + t)): TensorFlow's {@code ExponentialMovingAverage} warm-up min(β, (1 + u)/(10 + u)) after
 * u = t − 1 earlier updates, so (for β ≥ 0.1) the first update keeps 90% of θ₁ and early iterates are forgotten
 * quickly. De et al. warm the decay up; dp4j takes this form of the warm-up without having checked it against their
 * text.
 *
 * <p><b>Privacy.</b> The average is a fixed function (the same for every data set) of θ₀ — the initial parameters,
 * which must not depend on the private data, as DP-SGD's guarantee already assumes — and of the iterates θ₁ … θ_T.
 * A composition accountant ({@link ThreatModel#ALL_ITERATES_RELEASED}) already bounds the release of all
 * of them, so releasing the average — instead of, or with, the last iterate — is post-processing (Dwork &amp; Roth
 * 2014, Prop. 2.1): the same (ε, δ), the same neighbouring relation, no further assumption. A hidden-state
 * accountant ({@link ThreatModel#LAST_ITERATE_ONLY}) bounds θ_T alone; the average is not θ_T, so its bound does not
 * cover the average, and {@link #requireCovered} refuses such a ledger (as {@link DpSgdTrainer} does); see
 * docs/threat-models.md#averaged-iterates.
 *
 * <pre>{@code
 * // given: DpSgdSetup setup; MultiLayerNetwork net; IndexedData data; DataSetIterator test
 * ParameterAverage avg = ParameterAverage.withWarmup(0.999, net.params());
 * setup.trainer(net, data).averageParameters(avg).build().train();   // updated after every step
 * double averaged = avg.evaluate(net, () -> net.evaluate(test).accuracy());
 * net.setParams(avg.average());                                       // or release the averaged model itself
 * }</pre>
 *
 * <p>Not thread-safe; holds one copy of the parameters.
 */
public final class ParameterAverage {
  private final double decay;
  private final boolean warmup;
  private final INDArray average;
  private long updates;

  private ParameterAverage(double decay, boolean warmup, INDArray initial) {
    checkArgument(decay >= 0 && decay < 1, "decay must be in [0, 1), was %s", decay);
    checkNotNull(initial, "initial parameters");
    this.decay = decay;
    this.warmup = warmup;
    this.average = initial.dup();
  }

  /** Constant decay β: avg ← β·avg + (1 − β)·θ_t, starting from a copy of {@code initial}; β = 0 keeps θ_T. */
  public static ParameterAverage exponential(double decay, INDArray initial) {
    return new ParameterAverage(decay, false, initial);
  }

  /** Decay β_t = min(β, t/(9 + t)) at update t = 1, 2, … (see the class comment), from a copy of {@code initial}. */
  public static ParameterAverage withWarmup(double decay, INDArray initial) {
    return new ParameterAverage(decay, true, initial);
  }

  /** β. */
  public double decay() {
    return decay;
  }

  /** Whether β_t has the warm-up min(β, t/(9 + t)). */
  public boolean warmup() {
    return warmup;
  }

  /** Number of averaged parameters. */
  public long parameterCount() {
    return average.length();
  }

  /** Updates so far. */
  public long updates() {
    return updates;
  }

  /** The decay the next update will use. */
  public double nextDecay() {
    long t = updates + 1;
    return warmup ? Math.min(decay, t / (9.0 + t)) : decay;
  }

  /** Folds the parameters after an optimizer step into the average; {@code parameters} is not changed. */
  public void update(INDArray parameters) {
    checkArgument(parameters.length() == average.length(), "the average has %s parameters, the update %s",
        average.length(), parameters.length());
    double b = nextDecay();
    average.muli(b).addi(parameters.reshape(average.shape()).castTo(average.dataType()).mul(1 - b));
    updates++;
  }

  /** A copy of the averaged parameters (flattened as {@link Model#params()}). */
  public INDArray average() {
    return average.dup();
  }

  /**
   * Runs {@code evaluation} with the model's parameters replaced by the average, then puts the model's own
   * parameters back (also if the evaluation throws).
   */
  public <T> T evaluate(Model model, Supplier<T> evaluation) {
    INDArray own = model.params().dup();
    model.setParams(average);
    try {
      return evaluation.get();
    } finally {
      model.setParams(own);
    }
  }

  /**
   * Refuses, with a message naming the accountant and what to use instead, a ledger with an accountant whose bound
   * covers only the last iterate: the average is a function of every iterate.
   */
  public static void requireCovered(PrivacyLedger ledger) {
    for (StepAccountant a : ledger.accountants()) {
      checkArgument(a.threatModel() != ThreatModel.LAST_ITERATE_ONLY, "parameter averaging releases a function of "
          + "every iterate, but the accountant %s bounds only the last iterate (%s); average only with composition "
          + "accountants (all iterates released), or release the last iterate without averaging", a.name(),
          a.threatModel().description());
    }
  }

  @Override
  public String toString() {
    return "ParameterAverage[decay=" + decay + (warmup ? ", warm-up min(decay, t/(9+t))" : "") + ", updates="
        + updates + "]";
  }
}
