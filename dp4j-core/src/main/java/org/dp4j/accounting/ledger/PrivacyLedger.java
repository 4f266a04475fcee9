package org.dp4j.accounting.ledger;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;

/**
 * The privacy ledger of one training run: advances its accountants once per private update, refuses
 * the update that would exceed the budget, and records one {@link LedgerRow} per epoch.
 *
 * <p>Per threat model it reports the smallest ε among the accountants valid for it: composition
 * accountants are valid for both threat models, hidden-state accountants only for "only the last
 * iterate released", and only while that assumption holds ({@link #voidHiddenState}). Bounds are
 * compared by ε after conversion (never by mixing curves of different neighbouring relations).
 *
 * <p>Only certified accountants count: one whose {@link StepAccountant#notCertifiedBecause} is present (a paper's
 * uncertified accounting, e.g. DP-MBCD's PAPER mode) is reported separately as the paper's claim ({@link
 * #paperClaim}) and feeds the budget only if the builder was told so ({@link Builder#budgetFromPaperClaim}).
 *
 * <pre>{@code
 * // given: double q; double z
 * PrivacyLedger ledger = PrivacyLedger.builder()
 *     .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(q, z), Orders.DEFAULT))
 *     .delta(1e-5)
 *     .budget(new PrivacyBudget(3.0, 1e-5, ThreatModel.ALL_ITERATES_RELEASED))
 *     .build();
 * while (ledger.tryStep()) {
 *   // apply one private update
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class PrivacyLedger {
  private final List<StepAccountant> accountants;
  private final double delta;
  private final RdpConversion conversion;
  private final Optional<PrivacyBudget> budget;
  private final boolean budgetFromPaperClaim;
  private final List<LedgerRow> rows = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();
  private String hiddenStateVoidedBecause;
  private String guaranteesVoidedBecause;
  private int voidedBeforeRow;
  private long steps;
  /** Total step counts known to fit in the budget (≤) and known to exceed it (≥); see {@link #tryStep}. */
  private long knownWithinBudget;
  private long knownExceeding = Long.MAX_VALUE;
  private long lookAheadWindow = 1;

  private PrivacyLedger(Builder b) {
    this.accountants = List.copyOf(b.accountants);
    this.delta = b.delta;
    this.conversion = b.conversion;
    this.budget = Optional.ofNullable(b.budget);
    this.budgetFromPaperClaim = b.budgetFromPaperClaim;
    for (StepAccountant a : accountants) {
      checkArgument(a.steps() == 0, "accountant %s has already accounted %s steps", a.name(), a.steps());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public double delta() {
    return delta;
  }

  /** The RDP → (ε, δ) conversion used for Rényi accountants. */
  public RdpConversion conversion() {
    return conversion;
  }

  public Optional<PrivacyBudget> budget() {
    return budget;
  }

  public long steps() {
    return steps;
  }

  /** True if the user asked the budget to stop on the paper's claim rather than on a certified bound. */
  public boolean budgetFromPaperClaim() {
    return budgetFromPaperClaim;
  }

  /** Why some accountants of this ledger are not certified, one reason per such accountant (empty if none). */
  public List<String> notCertifiedBecause() {
    return accountants.stream().flatMap(a -> a.notCertifiedBecause().map(r -> a.name() + ": " + r).stream())
        .toList();
  }

  /**
   * The threat model the run claims, for which a report's ε is given: the budget's; without a budget, "only the
   * last iterate released" if a hidden-state accountant (certified or not) is configured, otherwise "all iterates
   * released".
   */
  public ThreatModel claimedThreatModel() {
    if (budget.isPresent()) {
      return budget.get().threatModel();
    }
    return accountants.stream().anyMatch(PrivacyLedger::isHiddenState) ? ThreatModel.LAST_ITERATE_ONLY
        : ThreatModel.ALL_ITERATES_RELEASED;
  }

  /**
   * The smallest bound among the accountants that are not certified after {@code more} further steps: the paper's
   * claim, never a guarantee; empty if every accountant is certified (or the uncertified ones were hidden-state
   * accountants and hidden-state bounds were voided).
   */
  public Optional<PrivacyGuarantee> paperClaim(long more) {
    return accountants.stream()
        .filter(a -> a.notCertifiedBecause().isPresent())
        .filter(a -> !isHiddenState(a) || hiddenStateVoidedBecause == null)
        .map(a -> guarantee(a, more))
        .min(Comparator.comparingDouble(PrivacyGuarantee::epsilon));
  }

  public List<StepAccountant> accountants() {
    return accountants;
  }

  public List<LedgerRow> rows() {
    return List.copyOf(rows);
  }

  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  /**
   * Why no guarantee at all holds for the run (the noise was not cryptographically secure), if so. The ledger
   * keeps accounting the configured mechanism (budget enforcement included), but every ε it holds then describes
   * that mechanism, not the run: reports must say so ({@code LedgerReport} does).
   */
  public Optional<String> guaranteesVoidedBecause() {
    return Optional.ofNullable(guaranteesVoidedBecause);
  }

  /**
   * Marks every guarantee of this run void (e.g. noise from a seeded, non-cryptographic generator: whoever knows
   * the seed can subtract the noise). Also voids hidden-state bounds. Idempotent; the first reason is kept.
   */
  public void voidGuarantees(String reason) {
    checkNotNull(reason, "reason");
    if (guaranteesVoidedBecause == null) {
      guaranteesVoidedBecause = reason;
      warnings.add("NO privacy guarantee: " + reason + "; every epsilon of this ledger describes the configured "
          + "mechanism, not this run");
    }
    voidHiddenState(reason);
  }

  /** Why hidden-state bounds are no longer reported, if they were voided. */
  public Optional<String> hiddenStateVoidedBecause() {
    return Optional.ofNullable(hiddenStateVoidedBecause);
  }

  /**
   * Stops reporting hidden-state bounds for the rest of the run (intermediate parameters or metrics on
   * private data left the trainer); composition bounds remain. Idempotent; the first reason is kept.
   */
  public void voidHiddenState(String reason) {
    checkNotNull(reason, "reason");
    if (hiddenStateVoidedBecause == null && accountants.stream().anyMatch(PrivacyLedger::isHiddenState)) {
      hiddenStateVoidedBecause = reason;
      voidedBeforeRow = rows.size();
      knownWithinBudget = steps; // bounds of the weaker threat model may now be larger
      lookAheadWindow = 1;
      warnings.add("hidden-state bounds voided: " + reason + "; only composition bounds are reported");
    }
  }

  /** The best certified bound for the threat model after {@code more} further steps; empty if none applies. */
  public Optional<PrivacyGuarantee> best(ThreatModel threatModel, long more) {
    return accountants.stream()
        .filter(a -> validFor(a, threatModel))
        .map(a -> guarantee(a, more))
        .min(Comparator.comparingDouble(PrivacyGuarantee::epsilon));
  }

  private Optional<PrivacyGuarantee> bestHiddenState(long more) {
    if (hiddenStateVoidedBecause != null) {
      return Optional.empty();
    }
    return accountants.stream().filter(PrivacyLedger::isHiddenState).filter(PrivacyLedger::isCertified)
        .map(a -> guarantee(a, more))
        .min(Comparator.comparingDouble(PrivacyGuarantee::epsilon));
  }

  private boolean validFor(StepAccountant a, ThreatModel threatModel) {
    if (!isCertified(a)) {
      return false;
    }
    if (a.threatModel() == ThreatModel.ALL_ITERATES_RELEASED) {
      return true;
    }
    return threatModel == ThreatModel.LAST_ITERATE_ONLY && hiddenStateVoidedBecause == null;
  }

  private static boolean isCertified(StepAccountant a) {
    return a.notCertifiedBecause().isEmpty();
  }

  private static boolean isHiddenState(StepAccountant a) {
    return a.threatModel() == ThreatModel.LAST_ITERATE_ONLY;
  }

  private PrivacyGuarantee guarantee(StepAccountant a, long more) {
    return a.guaranteeAfter(more, delta, conversion);
  }

  /**
   * True if {@code more} further steps would take the budget's ε above its limit: the best certified ε for the
   * budget's threat model, or the paper's claim if the builder asked for {@link Builder#budgetFromPaperClaim}.
   */
  public boolean wouldExceedBudget(long more) {
    if (budget.isEmpty()) {
      return false;
    }
    Optional<PrivacyGuarantee> g = budgetFromPaperClaim
        ? paperClaim(more).or(() -> best(budget.get().threatModel(), more))
        : best(budget.get().threatModel(), more);
    return g.isEmpty() || !(g.get().epsilon() <= budget.get().epsilon());
  }

  /**
   * Accounts one private update if it stays within the budget. Call it <em>before</em> applying the
   * update; when it returns false the update must not be applied and the model holds the last
   * in-budget parameters. Exact: it returns false at step k + 1 if and only if the budget's ε after k + 1
   * steps exceeds the limit.
   *
   * <p>Cost: the accountants are data-independent and their ε is non-decreasing in the step count, so the
   * ledger looks ahead by a window that doubles (up to the steps taken so far) whenever it fits and
   * binary-searches the exact limit inside the first window that does not: O(log T) evaluations of the
   * bound over a run of T steps, nothing for most steps (which is what makes a PLD accountant affordable).
   */
  public boolean tryStep() {
    if (budget.isPresent() && steps + 1 > knownWithinBudget) {
      if (steps + 1 >= knownExceeding) {
        return false;
      }
      lookAhead();
      if (steps + 1 > knownWithinBudget) {
        return false;
      }
    }
    advanceAll(1);
    return true;
  }

  /** Extends {@link #knownWithinBudget} past the current step, or pins the exact limit. */
  private void lookAhead() {
    long window = Math.max(1, Math.min(lookAheadWindow, Math.max(1, steps)));
    window = Math.min(window, knownExceeding - 1 - steps);
    if (!wouldExceedBudget(window)) {
      knownWithinBudget = steps + window;
      lookAheadWindow = 2 * window;
      return;
    }
    pinLimit(0, window); // steps + 0 fits (the current state was accepted); tryStep ensured window >= 1
  }

  /**
   * Given that {@code lo} more steps fit and {@code hi} more exceed, binary-searches the largest count that fits
   * and remembers both sides of the limit; returns that count.
   */
  private long pinLimit(long lo, long hi) {
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (wouldExceedBudget(mid)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    knownWithinBudget = Math.max(knownWithinBudget, steps + lo);
    knownExceeding = Math.min(knownExceeding, steps + hi);
    return lo;
  }

  /**
   * How many further steps fit in the budget, up to {@code horizon} (all of them if there is no
   * budget). Assumes ε is non-decreasing in the number of steps, which holds for every accountant here. The
   * answer is remembered: a trainer that asks for its planned horizon first makes every {@link #tryStep} up to
   * there free (one bound evaluation for the whole run when the plan fits the budget).
   */
  public long stepsWithinBudget(long horizon) {
    checkArgument(horizon >= 0, "horizon must be >= 0, was %s", horizon);
    if (!wouldExceedBudget(horizon)) {
      knownWithinBudget = Math.max(knownWithinBudget, steps + horizon); // tryStep need not look again
      return horizon;
    }
    if (wouldExceedBudget(0)) {
      return 0; // already over (a budget below the restored ledger's ε)
    }
    return pinLimit(0, horizon);
  }

  /** Steps accounted since the last closed row (all steps if no row was closed yet). */
  public long stepsSinceLastRow() {
    return rows.isEmpty() ? steps : steps - rows.get(rows.size() - 1).steps();
  }

  /** Records the row of the epoch just finished. */
  public LedgerRow closeEpoch(int epoch) {
    return closeRow(epoch, false);
  }

  /** Records the row of an epoch the budget stopped before it finished (it does not count as completed). */
  public LedgerRow closePartialEpoch(int epoch) {
    return closeRow(epoch, true);
  }

  /** Epochs whose rows were closed as finished (a budget stop's partial row is not counted). */
  public int epochsCompleted() {
    return (int) rows.stream().filter(r -> !r.partial()).count();
  }

  private LedgerRow closeRow(int epoch, boolean partial) {
    checkState(rows.isEmpty() || rows.get(rows.size() - 1).epoch() < epoch,
        "epoch %s closed after epoch %s", epoch, rows.isEmpty() ? 0 : rows.get(rows.size() - 1).epoch());
    Map<String, Double> lsi = new LinkedHashMap<>();
    Map<String, List<Double>> contributions = new LinkedHashMap<>();
    for (StepAccountant a : accountants) {
      a.lsiConstants().forEach((block, c) -> lsi.put(a.name() + "/" + block, c));
      double[] c = a.epochContributions();
      if (c.length > 0) {
        contributions.put(a.name(), java.util.Arrays.stream(c).boxed().toList());
      }
    }
    LedgerRow row = new LedgerRow(epoch, steps, best(ThreatModel.ALL_ITERATES_RELEASED, 0), bestHiddenState(0),
        best(ThreatModel.LAST_ITERATE_ONLY, 0), lsi, contributions, partial, paperClaim(0));
    rows.add(row);
    return row;
  }

  /**
   * What must be saved to resume this ledger exactly: the steps at each closed epoch, the total steps,
   * and when (and why) hidden-state bounds were voided. The accountants are data-independent, so
   * replaying step counts reproduces every number.
   *
   * @param fingerprint the mechanism, δ and budget this state belongs to
   * @param epochs epoch numbers of the closed rows
   * @param rowSteps steps at each closed row
   * @param steps total steps accounted
   * @param voidedBecause reason hidden-state bounds were voided, or null
   * @param voidedBeforeRow index of the first row closed after voiding (rows.size() if none)
   */
  public record State(String fingerprint, int[] epochs, long[] rowSteps, long steps, String voidedBecause,
      int voidedBeforeRow) implements java.io.Serializable {}

  /** Identifies the mechanism, δ, conversion and budget; resuming under another fingerprint is refused. */
  public String fingerprint() {
    StringBuilder sb = new StringBuilder();
    accountants.forEach(a -> sb.append(a.name()).append(':').append(a.mechanismDescription()).append(';'));
    sb.append("delta=").append(delta).append(";conversion=").append(conversion);
    budget.ifPresent(b -> sb.append(";budget=").append(b));
    if (budgetFromPaperClaim) {
      sb.append(";budgetFromPaperClaim");
    }
    return sb.toString();
  }

  public State state() {
    int[] epochs = rows.stream().mapToInt(LedgerRow::epoch).toArray();
    long[] rowSteps = rows.stream().mapToLong(LedgerRow::steps).toArray();
    return new State(fingerprint(), epochs, rowSteps, steps, hiddenStateVoidedBecause,
        hiddenStateVoidedBecause == null ? rows.size() : voidedBeforeRow);
  }

  /**
   * Replays a saved state into this fresh ledger, which must have the same fingerprint.
   *
   * @throws IllegalArgumentException if the mechanism, δ or budget differ from the saved ones
   */
  public void restore(State state) {
    checkState(steps == 0 && rows.isEmpty(), "restore needs a fresh ledger, this one has %s steps", steps);
    checkArgument(state.fingerprint().equals(fingerprint()),
        "cannot resume: the saved ledger was for %s, this run is %s", state.fingerprint(), fingerprint());
    for (int i = 0; i < state.epochs().length; i++) {
      if (state.voidedBecause() != null && i == state.voidedBeforeRow()) {
        voidHiddenState(state.voidedBecause());
      }
      advanceAll(state.rowSteps()[i] - steps);
      closeEpoch(state.epochs()[i]);
    }
    if (state.voidedBecause() != null && state.voidedBeforeRow() >= state.epochs().length) {
      voidHiddenState(state.voidedBecause());
    }
    advanceAll(state.steps() - steps);
  }

  private void advanceAll(long count) {
    checkArgument(count >= 0, "saved steps go backwards by %s", -count);
    for (StepAccountant a : accountants) {
      a.advance(count);
    }
    steps += count;
  }

  /** Builder; at least one accountant and δ are required. */
  public static final class Builder {
    private final List<StepAccountant> accountants = new ArrayList<>();
    private double delta = Double.NaN;
    private RdpConversion conversion = RdpConversion.IMPROVED;
    private PrivacyBudget budget;
    private boolean budgetFromPaperClaim;

    private Builder() {}

    public Builder accountant(StepAccountant accountant) {
      accountants.add(checkNotNull(accountant, "accountant"));
      return this;
    }

    public Builder delta(double delta) {
      checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
      this.delta = delta;
      return this;
    }

    public Builder conversion(RdpConversion conversion) {
      this.conversion = checkNotNull(conversion, "conversion");
      return this;
    }

    /** The budget to enforce; its δ must equal the ledger's δ. */
    public Builder budget(PrivacyBudget budget) {
      this.budget = checkNotNull(budget, "budget");
      return this;
    }

    /**
     * Stop on the paper's claim (the smallest bound of the uncertified accountants) instead of a certified bound:
     * only to reproduce a paper's runs; the report states it. Needs a budget and an uncertified accountant.
     */
    public Builder budgetFromPaperClaim(boolean fromPaperClaim) {
      this.budgetFromPaperClaim = fromPaperClaim;
      return this;
    }

    public PrivacyLedger build() {
      checkState(!accountants.isEmpty(), "a ledger needs at least one accountant");
      checkState(!Double.isNaN(delta), "delta is required");
      checkState(budget == null || budget.delta() == delta,
          "budget delta %s differs from the ledger's delta %s", budget == null ? 0 : budget.delta(), delta);
      checkState(!budgetFromPaperClaim || budget != null, "budgetFromPaperClaim needs a budget");
      checkState(!budgetFromPaperClaim || accountants.stream().anyMatch(a -> a.notCertifiedBecause().isPresent()),
          "budgetFromPaperClaim needs an accountant that reproduces a paper's claim; every accountant here is "
              + "certified, so the budget already stops on a guarantee");
      return new PrivacyLedger(this);
    }
  }
}
