package org.dp4j.samples.cli;

import static org.dp4j.accounting.NeighbouringRelation.ADD_REMOVE;
import static org.dp4j.accounting.NeighbouringRelation.REPLACE_ONE;
import static org.dp4j.accounting.ThreatModel.ALL_ITERATES_RELEASED;
import static org.dp4j.accounting.ThreatModel.LAST_ITERATE_ONLY;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant;
import org.dp4j.accounting.hiddenstate.LangevinLsiAccountant;
import org.dp4j.accounting.hiddenstate.PabiAccountant;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationCyclicAccountant;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationNoisyGdAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriConvexFixedBatchAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriFixedBatchAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriNaiveBaselineAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriShuffleAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriWithoutReplacementAccountant;

/**
 * What {@code dp4j account --list} prints: every accountant the command line offers, the command that runs it,
 * its theorem, threat model, neighbouring relation and the assumptions its bound needs in general (a report
 * lists them with the configuration's values).
 */
enum AccountantCatalogue {
  SGM("sgm", SampledGaussianAccountant.NAME, SampledGaussianAccountant.THEOREM, ALL_ITERATES_RELEASED, ADD_REMOVE,
      SampledGaussianAccountant.ASSUMPTIONS),
  DP_MBCD("dp-mbcd", DpMbcdAccountant.NAME, DpMbcdAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
      "per released block: L_F (gradient step), L_T <= 1 (prox) and per-example gradient sensitivity S_g,"
          + " user-asserted",
      "one secret data-independent permutation, same batch order every epoch",
      "noise temperature schedule fixed before training",
      "hidden auxiliaries leak nothing between blocks (the paper's claim, docs/threat-models.md#dp-mbcd-auxiliaries)")),
  YE_SHOKRI_CONVEX("ye-shokri --theorem convex-fixed-batch", YeShokriConvexFixedBatchAccountant.NAME,
      YeShokriConvexFixedBatchAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          "convex beta-smooth loss, eta < 2/beta (user-asserted)", YeShokriCommon.FIXED, YeShokriCommon.PLAIN)),
  YE_SHOKRI_FIXED("ye-shokri --theorem fixed-batch", YeShokriFixedBatchAccountant.NAME,
      YeShokriFixedBatchAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          YeShokriCommon.STRONGLY_CONVEX, YeShokriCommon.FIXED, YeShokriCommon.PLAIN)),
  YE_SHOKRI_SHUFFLE("ye-shokri --theorem shuffle", YeShokriShuffleAccountant.NAME, YeShokriShuffleAccountant.THEOREM,
      LAST_ITERATE_ONLY, REPLACE_ONE, List.of(YeShokriCommon.STRONGLY_CONVEX,
          "one secret permutation drawn once, same batch order every epoch", YeShokriCommon.PLAIN)),
  YE_SHOKRI_WITHOUT_REPLACEMENT("ye-shokri --theorem without-replacement", YeShokriWithoutReplacementAccountant.NAME,
      YeShokriWithoutReplacementAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          YeShokriCommon.STRONGLY_CONVEX, "a fresh batch drawn without replacement at every step",
          YeShokriCommon.PLAIN)),
  YE_SHOKRI_NAIVE("ye-shokri --theorem naive-baseline", YeShokriNaiveBaselineAccountant.NAME,
      YeShokriNaiveBaselineAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          YeShokriCommon.STRONGLY_CONVEX, YeShokriCommon.FIXED, YeShokriCommon.PLAIN)),
  KONG_RIBERO("kong-ribero", KongRiberoAccountant.NAME, "Kong & Ribero 2025, Thm 2.2 eq. (16) / Thm 2.3 eqs."
      + " (17), (19) (docs/accountants.md#kong-ribero)", LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          "every per-example loss m-weakly convex and M-smooth (user-asserted; a ReLU network is not smooth)",
          "lambda <= 1/(2(m+M)) with clipping, <= 1/(m+M) with an asserted gradient bound",
          "fixed cyclic order of k/b batches; noise on every parameter; only X_T released")),
  SHIFTED_INTERPOLATION_GD("shifted-interpolation --algorithm gd", ShiftedInterpolationNoisyGdAccountant.NAME,
      "Bok, Su & Altschuler 2024, Thm 4.1-4.3 / C.7 (docs/accountants.md#shifted-interpolation)", LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          ShiftedInterpolationCommon.LOSS, "full-batch gradient at every step", ShiftedInterpolationCommon.NOISE)),
  SHIFTED_INTERPOLATION_CGD("shifted-interpolation --algorithm cgd", ShiftedInterpolationCyclicAccountant.NAME,
      "Bok, Su & Altschuler 2024, Thm 4.4-4.6 (docs/accountants.md#shifted-interpolation)", LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
          ShiftedInterpolationCommon.LOSS, "fixed partition into n/b batches, same order every epoch",
          ShiftedInterpolationCommon.NOISE)),
  PABI("pabi", PabiAccountant.NAME, PabiAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE, List.of(
      "every loss convex, beta-smooth and L-Lipschitz, eta <= 2/beta (user-asserted); no clipping",
      "fixed cyclic order of n/B disjoint batches")),
  LANGEVIN("langevin", LangevinLsiAccountant.NAME, LangevinLsiAccountant.THEOREM, LAST_ITERATE_ONLY, REPLACE_ONE,
      List.of("mean loss lambda-strongly convex and beta-smooth on a convex set, eta < 1/beta (user-asserted)",
          "full-batch gradient and projection at every step; data-independent Gaussian start"));

  private final String command;
  private final String accountant;
  private final String theorem;
  private final ThreatModel threatModel;
  private final NeighbouringRelation relation;
  private final List<String> assumptions;

  AccountantCatalogue(String command, String accountant, String theorem, ThreatModel threatModel,
      NeighbouringRelation relation, List<String> assumptions) {
    this.command = command;
    this.accountant = accountant;
    this.theorem = theorem;
    this.threatModel = threatModel;
    this.relation = relation;
    this.assumptions = assumptions;
  }

  /** Assumption texts shared by the Ye–Shokri entries (an enum cannot refer to its own constants early). */
  private static final class YeShokriCommon {
    static final String STRONGLY_CONVEX = "lambda-strongly convex beta-smooth loss, eta < 2/(lambda+beta)"
        + " (user-asserted)";
    static final String FIXED = "fixed batches visited in the same order every epoch";
    static final String PLAIN = "plain noisy GD with Gaussian noise on the parameters; only the last iterate released";
  }

  /** Assumption texts shared by the shifted-interpolation entries. */
  private static final class ShiftedInterpolationCommon {
    static final String LOSS = "every f_i convex (or m-strongly convex) and M-smooth, eta <= 2/M (user-asserted)";
    static final String NOISE = "Gaussian noise on the averaged gradient; only the last iterate released";
  }

  String text() {
    StringBuilder sb = new StringBuilder("dp4j account ").append(command).append('\n')
        .append("  accountant: ").append(accountant).append(" — ").append(theorem).append('\n')
        .append("  threat model: ").append(threatModel.description()).append('\n')
        .append("  neighbouring relation: ").append(relation.description()).append('\n');
    assumptions.forEach(a -> sb.append("  assumes: ").append(a).append('\n'));
    return sb.toString();
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", "dp4j account " + command);
    m.put("accountant", accountant);
    m.put("theorem", theorem);
    m.put("threatModel", threatModel.description());
    m.put("neighbouringRelation", relation.description());
    m.put("assumptions", assumptions);
    return m;
  }
}
