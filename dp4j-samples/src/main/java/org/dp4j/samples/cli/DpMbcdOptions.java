package org.dp4j.samples.cli;

import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.mbcd.BatchReduction;
import picocli.CommandLine.Option;

/** The {@code dp4j train} options that only {@code --algorithm dp-mbcd} reads (Chen &amp; Liu; docs/accountants.md#dp-mbcd). */
final class DpMbcdOptions {
  @Option(names = "--noise-variance", paramLabel = "O",
      description = "dp-mbcd: constant noise temperature o; every block gets N(0, 2*eta*o*I) per step (a variance, "
          + "not a noise multiplier). Alternative to --noise-schedule.")
  Double noiseVariance;

  @Option(names = "--noise-schedule", paramLabel = "KIND:VALUES", description = "dp-mbcd: " + NoiseScheduleSpec.HELP)
  String noiseSchedule;

  @Option(names = "--rho", paramLabel = "RHO",
      description = "dp-mbcd: norm bound of every x_d, inputs included (Eq. 12; default 1, the paper's rho^2 = 1).")
  Double rho;

  @Option(names = "--mode", paramLabel = "safe|paper",
      description = "dp-mbcd: which hidden-state accounting the ledger uses (default safe: constants certified from "
          + "the code; paper: the paper's L_F = |1 - eta*rho^2|, S_g = rho^2, reported as epsilonPaperClaim, never as "
          + "epsilon). epsilon and the budget always use the best certified bound (safe hidden state, composition).")
  DpMbcdMode mode;

  @Option(names = "--budget-from-paper-claim",
      description = "dp-mbcd with --mode paper and --budget: stop on the paper's uncertified claim instead of the "
          + "best certified bound (to reproduce the paper's runs; the report says so).")
  boolean budgetFromPaperClaim;

  @Option(names = "--strong-convexity", paramLabel = "MU",
      description = "dp-mbcd: add (MU/2)||W||^2 to every block objective, so that safe-mode L_F < 1 (default 0).")
  Double strongConvexity;

  @Option(names = "--proximal-point",
      description = "dp-mbcd: the paper's MNIST variant (exact proximal-point block steps, Eq. 17 corrected; stable "
          + "for large learning rates). Not certifiable (data-dependent map, unclipped): needs --mode paper.")
  boolean proximalPoint;

  @Option(names = "--batch-reduction", paramLabel = "mean|sum",
      description = "dp-mbcd: block steps on batch means (default; docs/errata.md#dp-mbcd-batch-mean) or on batch sums as the paper's "
          + "Eq. 15-17 print them (eta and o then apply to sums: the same run as mean with eta*b and o/b). Safe "
          + "accounting is correct for both; paper mode with sum repeats the paper's understatement and says so.")
  BatchReduction batchReduction;

  @Option(names = "--output", paramLabel = "mse|softmax",
      description = "dp-mbcd: output block loss: mse (default, the paper's squared loss on one-hot targets, closed-form "
          + "x-update) or softmax (cross-entropy; iterative prox of the output block).")
  String output;

  @Option(names = "--conv-channels", paramLabel = "N",
      description = "dp-mbcd --model cnn: output channels of the 5x5 stride-2 convolution (default 6); --hidden sets "
          + "the dense layers after the average pooling (default 64).")
  Integer convChannels;

  @Option(names = "--accuracy-each-epoch",
      description = "dp-mbcd: also print test accuracy after every epoch (evaluates intermediate iterates, which the "
          + "hidden-state threat model assumes are never released; for experiments only).")
  boolean accuracyEachEpoch;

  /** True if any dp-mbcd-only option was given (refused for other algorithms). */
  boolean anyGiven() {
    return noiseVariance != null || noiseSchedule != null || rho != null || mode != null || strongConvexity != null
        || accuracyEachEpoch || proximalPoint || batchReduction != null || output != null
        || convChannels != null || budgetFromPaperClaim;
  }
}
