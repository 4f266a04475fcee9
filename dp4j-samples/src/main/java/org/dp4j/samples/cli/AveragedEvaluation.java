package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.training.DpSgdTrainer;
import org.dp4j.training.ParameterAverage;
import org.nd4j.linalg.dataset.DataSet;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code dp4j train --average-decay β}: evaluates (and reports) the exponential moving average of the DP-SGD iterates
 * ({@link ParameterAverage}, with its warm-up) instead of the last iterate, and the last iterate beside it. The
 * average is post-processing of iterates the composition accountant already counts as released, so the run's ε, δ
 * and neighbouring relation are unchanged; the last-iterate (hidden-state) path of {@code --model softmax} and DP-MBCD
 * is refused. Without the option every method here is the plain last-iterate evaluation.
 */
final class AveragedEvaluation {
  /** The option, as a picocli mixin of {@link TrainCommand}. */
  static final class Options {
    @Option(names = "--average-decay", paramLabel = "BETA",
        description = "DP-SGD: evaluate the exponential moving average of the iterates, avg <- b*avg + (1-b)*theta "
            + "after every update with b = min(BETA, t/(9+t)) (De et al. 2022), instead of the last iterate; BETA "
            + "in [0, 1). Free under the composition accountant (post-processing of the released iterates); not "
            + "with last-iterate accounting (--model softmax, dp-mbcd). Default: off.")
    Double decay;
  }

  static final String PRIVACY = "post-processing of the iterates, all of which the composition accountant already "
      + "counts as released: epsilon, delta and the neighbouring relation are unchanged";
  private final Double decay;
  private final PrintWriter out;
  private final List<Double> lastIterate = new ArrayList<>();
  private ParameterAverage average;

  private AveragedEvaluation(Double decay, PrintWriter out) {
    this.decay = decay;
    this.out = out;
  }

  /** The evaluation the command line asks for; refuses averaging where it is not covered or not supported. */
  static AveragedEvaluation requested(CommandLine cmd, Options o, TrainCommand t) {
    if (o.decay == null) {
      return new AveragedEvaluation(null, cmd.getOut());
    }
    if (!(o.decay >= 0 && o.decay < 1)) {
      throw new CommandLine.ParameterException(cmd, "--average-decay must be in [0, 1), was " + o.decay);
    }
    if (t.algorithm == TrainCommand.Algorithm.DP_MBCD || CertifiedSoftmaxTraining.requested(t)) {
      throw new CommandLine.ParameterException(cmd, "--average-decay averages every iterate, but this run's "
          + "hidden-state epsilon covers only the last iterate released; use it with DP-SGD under composition "
          + "accounting (--model mlp, cnn, lstm, or --features scatternet)");
    }
    if (t.spark != null || t.checkpoint != null || t.resume != null) {
      throw new CommandLine.ParameterException(cmd, "--average-decay is not supported with --spark, --checkpoint "
          + "or --resume yet (the average is not distributed or saved)");
    }
    return new AveragedEvaluation(o.decay, cmd.getOut());
  }

  /** Starts the average from the network's initial parameters and has the trainer update it after every step. */
  DpSgdTrainer.Builder attach(DpSgdTrainer.Builder trainer, MultiLayerNetwork net) {
    if (decay == null) {
      return trainer;
    }
    average = ParameterAverage.withWarmup(decay, net.params());
    out.printf(Locale.ROOT, "parameter averaging: test accuracy is measured on the exponential moving average of "
        + "the iterates (decay min(%s, t/(9+t)) at update t); %s%n", decay, PRIVACY);
    return trainer.averageParameters(average);
  }

  /** Accuracy of the averaged parameters (of the last iterate without averaging); the last iterate's is kept. */
  double accuracy(MultiLayerNetwork net, DataSet testSet) {
    return accuracy(net, n -> Accuracy.of(n, testSet));
  }

  /** As {@link #accuracy(MultiLayerNetwork, DataSet)}, with the accuracy measured by {@code evaluation}. */
  double accuracy(MultiLayerNetwork net, ToDoubleFunction<MultiLayerNetwork> evaluation) {
    double last = evaluation.applyAsDouble(net);
    if (average == null) {
      return last;
    }
    lastIterate.add(last);
    double averaged = average.evaluate(net, () -> evaluation.applyAsDouble(net));
    out.printf(Locale.ROOT, "  after %d updates: accuracy %.4f with the averaged parameters, %.4f with the last "
        + "iterate%n", average.updates(), averaged, last);
    return averaged;
  }

  /** Entries of the JSON report (none without averaging). */
  Map<String, Object> report() {
    Map<String, Object> r = new LinkedHashMap<>();
    if (average != null) {
      r.put("evaluatedParameters", "exponential moving average of the iterates (testAccuracy, "
          + "testAccuracyPerEpoch); lastIterateTestAccuracyPerEpoch is the last iterate's");
      r.put("averageDecay", decay);
      r.put("averageWarmup", "decay min(averageDecay, t/(9+t)) at update t");
      r.put("averageUpdates", average.updates());
      r.put("averagePrivacy", PRIVACY);
      r.put("lastIterateTestAccuracyPerEpoch", List.copyOf(lastIterate));
    }
    return r;
  }
}
