package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import java.util.Objects;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.hiddenstate.YeShokriConfig;
import org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.learning.regularization.L2Regularization;
import org.nd4j.linalg.learning.regularization.Regularization;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.nd4j.linalg.schedule.FixedSchedule;

/**
 * Derives, from a network, its data and its sampler, the constants of Ye &amp; Shokri Cor. 6.3 (L2-regularised
 * multiclass logistic regression trained by Algorithm 3; docs/accountants.md#ye-shokri-certified, #ye-shokri) and so a <em>certified</em>
 * hidden-state bound: nothing is asserted by the user. {@link #certify} refuses, naming the failed condition,
 * unless all of these hold:
 * <ul>
 *   <li>one layer: a DL4J {@link OutputLayer} with bias, softmax activation, unweighted MCXENT loss, no input
 *       preprocessor, dropout, weight noise, constraints or gradient normalisation (the model ℓ0 of Eq. (24));</li>
 *   <li>L2 regularisation with the same fixed λ &gt; 0 on weights ({@code .l2(λ)}) and bias ({@code .l2Bias(λ)}).
 *       DL4J 1.0.0-M2.1's {@link L2Regularization} adds λθ to the gradient before the updater (bytecode:
 *       {@code Axpy(param, grad, grad, λ)}, {@code ApplyStep.BEFORE_UPDATER}), i.e. the gradient of (λ/2)‖θ‖², after
 *       the noise and outside the clip, as Alg. 3 requires (docs/accountants.md#ye-shokri-certified); no L1, no other regularisation;</li>
 *   <li>the network's {@link DpSgd} clips the whole per-example gradient ({@link ClippingMode#FLAT}) of the
 *       unregularised loss to C, so S_g = 2C (replace-one, docs/errata.md#ye-shokri-sensitivity), over a plain constant-step {@link Sgd}
 *       base updater η ({@link PlainSgdCheck}), and divides by its expected batch size, which must equal b;</li>
 *   <li>features clipped to ℓ2 norm L by {@link FeatureClippedData}, so ℓ0 is convex and (L²+1)/2-smooth
 *       (Prop. 6.1) and β = (L²+1)/2 + λ for the regularised loss;</li>
 *   <li>a shuffle-once fixed partition with m = ⌊n/b⌋ ≥ 2 batches of b (n := m·b used records);</li>
 *   <li>η &lt; 2/(λ + β) = 2/((L²+1)/2 + 2λ) (Cor. 6.3).</li>
 * </ul>
 *
 * <p><b>Noise mapping.</b> {@link DpSgdStep} computes θ' = θ − η·[(Σ_{i∈B} clip_C(∇ℓ0(θ; x_i)) + zC·ξ)/b + λθ]
 * with ξ ~ N(0, I): the noise N(0,(zC)²) on the clipped sum, ÷ b, then DL4J adds λθ and plain SGD multiplies
 * by η. That is θ' = θ − η·(g0 + λθ) − (η·z·C/b)·ξ with g0 the clipped batch mean: Algorithm 3's update with
 * σ_mul = z (the sign of a centred Gaussian is immaterial). In the theory's units √(2ησ²) = η·z·C/b, i.e.
 * σ² = η·z²·C²/(2b²) (docs/errata.md#ye-shokri-noise-scale), and G(α) = α·η·S_g²/(4σ²b²) = 2α/z² (Eq. (29)).
 *
 * <p>Remaining assumptions, listed in every guarantee: only the last iterate (after a whole epoch) is released;
 * labels are one-hot; Prop. 6.2's claim that the clipped-plus-regularised gradient map is λ-strongly monotone
 * and (β+λ)-Lipschitz is taken from the paper (docs/errata.md#ye-shokri-prop-6-2); arithmetic is exact (training runs in floating
 * point).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; LabelledImages images
 * FeatureClippedData data = FeatureClippedData.of(IndexedData.of(images, DataType.FLOAT), 1.0);
 * ShuffleOncePartition sampler = new ShuffleOncePartition(data.size(), 1000, AesCtrRandom.secure());
 * SoftmaxRegressionCertificate cert = SoftmaxRegressionCertificate.certify(net, data, sampler.plan(), 40);
 * PrivacyLedger ledger = cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT); // both threat models
 * DpSgdTrainer.builder(net, data).sampler(sampler).ledger(ledger).epochs(40).build().train();
 * }</pre>
 */
public final class SoftmaxRegressionCertificate {
  private final double featureClip;
  private final double l2;
  private final double stepSize;
  private final double clipNorm;
  private final double noiseMultiplier;
  private final SamplingPlan plan;
  private final YeShokriConfig config;

  private SoftmaxRegressionCertificate(double featureClip, double l2, double stepSize, double clipNorm,
      double noiseMultiplier, SamplingPlan plan, int epochs) {
    this.featureClip = featureClip;
    this.l2 = l2;
    this.stepSize = stepSize;
    this.clipNorm = clipNorm;
    this.noiseMultiplier = noiseMultiplier;
    this.plan = plan;
    this.config = YeShokriConfig.builder()
        .datasetSize(plan.usableRecords()).batchSize(plan.fixedBatchSize()).epochs(epochs)
        .stepSize(stepSize).strongConvexity(l2).smoothness(smoothness())
        .clipNorm(clipNorm).noiseMultiplier(noiseMultiplier)
        .lossConstantsSource("certified from the configuration: Prop. 6.1-6.2 with dp4j's feature clipping and L2")
        .build();
  }

  /**
   * Certifies that training {@code net} with {@link DpSgdStep} on {@code data} in the batches of {@code plan}
   * for {@code epochs} epochs is Algorithm 3 under Cor. 6.3's conditions.
   *
   * @throws IllegalArgumentException naming the first condition that fails
   */
  public static SoftmaxRegressionCertificate certify(MultiLayerNetwork net, FeatureClippedData data,
      SamplingPlan plan, int epochs) {
    checkNotNull(net, "network");
    checkNotNull(data, "data");
    checkNotNull(plan, "plan");
    checkArgument(epochs >= 1, "epochs K must be >= 1, was %s", epochs);
    OutputLayer layer = softmaxLayer(net.getLayerWiseConfigurations());
    double lambda = l2OnWeightsAndBias(layer);
    DpSgd dp = DpSgdStep.configOf(net);
    checkArgument(dp.clipping() == ClippingMode.FLAT,
        "Cor. 6.3 needs the whole per-example gradient clipped to C (FLAT clipping), was %s", dp.clipping());
    PlainSgdCheck.whyNotPlainSgd(net).ifPresent(why -> {
      throw new InvalidSettingException("Cor. 6.3 needs plain constant-step SGD without momentum: " + why);
    });
    double eta = ((Sgd) dp.baseUpdater()).getLearningRate();
    checkArgument(plan.scheme() == SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION,
        "Cor. 6.3 (Thm 5.2) needs a shuffle-once fixed partition, the sampler is %s", plan.describe());
    checkArgument(plan.datasetSize() == data.size(), "the sampler covers %s records but the data has %s",
        plan.datasetSize(), data.size());
    int b = plan.fixedBatchSize();
    checkArgument(dp.expectedBatchSize() == b, "DpSgd divides the noisy sum by %s but the partition's batches "
        + "have b = %s records: Algorithm 3 divides by b", (Object) dp.expectedBatchSize(), (Object) b);
    checkArgument(plan.stepsPerEpoch() >= 2, "Cor. 6.3 needs m = ⌊n/b⌋ >= 2 batches per epoch, was m = %s",
        plan.stepsPerEpoch());
    double bigL = data.maxNorm();
    double limit = stepSizeLimit(bigL, lambda);
    checkArgument(eta < limit, "Cor. 6.3 needs η < 2/(λ+β) = 2/((L²+1)/2 + 2λ) = %s with L = %s, λ = %s; "
        + "the learning rate is η = %s", limit, bigL, lambda, eta);
    return new SoftmaxRegressionCertificate(bigL, lambda, eta, dp.clipNorm(), dp.noiseMultiplier(), plan, epochs);
  }

  private static OutputLayer softmaxLayer(MultiLayerConfiguration conf) {
    checkArgument(conf.getConfs().size() == 1, "Cor. 6.3 covers softmax regression: one OutputLayer and no "
        + "hidden layers, the network has %s layers", conf.getConfs().size());
    Layer l = conf.getConf(0).getLayer();
    checkArgument(l.getClass() == OutputLayer.class, "Cor. 6.3 needs a DL4J OutputLayer, was %s",
        l.getClass().getSimpleName());
    OutputLayer out = (OutputLayer) l;
    checkArgument(out.getActivationFn() instanceof ActivationSoftmax,
        "Cor. 6.3 needs softmax activation, was %s", out.getActivationFn());
    checkArgument(out.getLossFn() instanceof LossMCXENT mc && mc.getWeights() == null,
        "Cor. 6.3 needs the unweighted multiclass cross-entropy (MCXENT) loss, was %s", out.getLossFn());
    checkArgument(out.hasBias(), "Cor. 6.3's model has a per-class bias (x̄ = (x, 1)); the layer has none");
    checkArgument(conf.getInputPreProcess(0) == null,
        "an input preprocessor (%s) would change the clipped features", conf.getInputPreProcess(0));
    checkArgument(out.getIDropout() == null, "dropout (%s) is not part of Algorithm 3", out.getIDropout());
    checkArgument(out.getWeightNoise() == null, "weight noise (%s) is not part of Algorithm 3", out.getWeightNoise());
    checkArgument(out.getConstraints() == null || out.getConstraints().isEmpty(),
        "parameter constraints (%s) are a projection, which Cor. 6.3 does not cover", out.getConstraints());
    checkArgument(out.getGradientNormalization() == null
        || out.getGradientNormalization() == GradientNormalization.None,
        "gradient normalisation (%s) rescales the noisy gradient, which Cor. 6.3 does not cover",
        out.getGradientNormalization());
    return out;
  }

  /** λ from {@code .l2(λ)} and {@code .l2Bias(λ)}: both present, fixed, equal and &gt; 0. */
  private static double l2OnWeightsAndBias(OutputLayer layer) {
    double weights = fixedL2(layer.getRegularization(), "weights", ".l2(λ)");
    double bias = fixedL2(layer.getRegularizationBias(), "bias", ".l2Bias(λ)");
    checkArgument(weights == bias, "Cor. 6.3 regularises all parameters with one λ: weights have L2 %s, bias %s",
        weights, bias);
    return weights;
  }

  private static double fixedL2(List<Regularization> list, String params, String setter) {
    checkArgument(list != null && list.size() == 1, "Cor. 6.3 needs exactly one L2 regularisation λ > 0 on the "
        + "%s (set %s), found %s", params, setter, list);
    Regularization r = list.get(0);
    checkArgument(r instanceof L2Regularization l2 && l2.getL2() instanceof FixedSchedule,
        "Cor. 6.3 needs a fixed L2 coefficient (%s) on the %s, found %s", setter, params, r);
    double lambda = ((FixedSchedule) ((L2Regularization) r).getL2()).getValue();
    checkArgument(lambda > 0 && Double.isFinite(lambda),
        "Cor. 6.3 needs λ > 0 (strong convexity) on the %s, was %s", params, lambda);
    return lambda;
  }

  /** L, the certified feature norm bound. */
  public double featureClip() {
    return featureClip;
  }

  /** λ, the L2 coefficient on weights and bias (strong convexity). */
  public double strongConvexity() {
    return l2;
  }

  /** β = (L²+1)/2 + λ (Prop. 6.1 plus the regulariser). */
  public double smoothness() {
    return (featureClip * featureClip + 1) / 2 + l2;
  }

  /** 2/(λ+β), the bound Cor. 6.3 puts on η (strict): {@link #stepSizeLimit(double, double)} at this L and λ. */
  public double stepSizeLimit() {
    return stepSizeLimit(featureClip, l2);
  }

  /**
   * Ye &amp; Shokri 2022, Cor. 6.3: the step size η must stay strictly below 2/(λ + β) = 2/((L²+1)/2 + 2λ), where
   * β = (L²+1)/2 + λ is the smoothness of the L2-regularised softmax loss with features of norm at most L
   * (Prop. 6.1). {@link #certify} refuses η at or above it; pick η before building the network, e.g.
   *
   * <pre>{@code
   * double eta = 0.9 * SoftmaxRegressionCertificate.stepSizeLimit(4.0, 0.01);   // L = 4, λ = 0.01: 0.9 · 0.2353
   * }</pre>
   */
  public static double stepSizeLimit(double featureClip, double l2) {
    checkArgument(featureClip > 0 && Double.isFinite(featureClip), "feature clip L must be finite and > 0, was %s",
        featureClip);
    checkArgument(l2 > 0 && Double.isFinite(l2), "L2 coefficient λ must be finite and > 0, was %s", l2);
    return 2 / ((featureClip * featureClip + 1) / 2 + 2 * l2);
  }

  /** η. */
  public double stepSize() {
    return stepSize;
  }

  /** C, the per-example clip norm of the unregularised gradient (S_g = 2C). */
  public double clipNorm() {
    return clipNorm;
  }

  /** z = σ_mul. */
  public double noiseMultiplier() {
    return noiseMultiplier;
  }

  public SamplingPlan plan() {
    return plan;
  }

  /** The derived Ye–Shokri configuration (n = m·b used records). */
  public YeShokriConfig config() {
    return config;
  }

  /** What was certified, one line each, for the guarantee's assumption list. */
  public List<String> certifiedConditions() {
    return List.of(
        String.format("certified from the configuration: one softmax OutputLayer with bias and MCXENT loss, "
            + "L2 λ = %s on weights and bias (DL4J adds λθ after the noise)", l2),
        String.format("certified: features clipped by dp4j to ℓ2 norm L = %s, so β = (L²+1)/2 + λ = %s "
            + "(Prop. 6.1)", featureClip, smoothness()),
        String.format("certified: plain SGD η = %s < 2/(λ+β) = %s; unregularised per-example gradient clipped "
            + "to C = %s (S_g = 2C); noise multiplier σ_mul = z = %s", stepSize, stepSizeLimit(),
            clipNorm, noiseMultiplier),
        "labels are one-hot; Prop. 6.2 (the clipped gradient plus λθ is λ-strongly monotone and (β+λ)-Lipschitz) "
            + "as claimed by the paper (docs/errata.md#ye-shokri-prop-6-2); exact arithmetic");
  }

  /**
   * A ledger reporting both threat models for this run: every iterate released
   * ({@link FixedPartitionCompositionStepAccountant}) and the certified last-iterate bound
   * ({@link CertifiedYeShokriStepAccountant}); both replace-one.
   */
  public PrivacyLedger ledger(double delta, RdpConversion conversion, Orders orders) {
    return ledgerBuilder(delta, conversion, orders).build();
  }

  /** {@link #ledger} before {@code build()}, to add a budget. */
  public PrivacyLedger.Builder ledgerBuilder(double delta, RdpConversion conversion, Orders orders) {
    return PrivacyLedger.builder()
        .accountant(new FixedPartitionCompositionStepAccountant(plan.usableRecords(), plan.fixedBatchSize(),
            noiseMultiplier, orders))
        .accountant(new CertifiedYeShokriStepAccountant(this, orders))
        .delta(delta).conversion(conversion);
  }

  /**
   * Re-certifies {@code net} on {@code data} and {@code plan} and refuses it unless every derived constant
   * equals this certificate's (the trainer's check that the ledger describes the run).
   */
  public void requireCovers(MultiLayerNetwork net, IndexedData data, SamplingPlan actual) {
    checkArgument(data instanceof FeatureClippedData, "the certified bound needs the training data clipped by "
        + "FeatureClippedData (L = %s), the trainer has %s", featureClip, data.getClass().getSimpleName());
    SoftmaxRegressionCertificate other = certify(net, (FeatureClippedData) data, actual, config.epochs());
    checkArgument(equals(other), "the ledger's certificate %s does not describe this run, which is %s", this, other);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SoftmaxRegressionCertificate c && c.featureClip == featureClip && c.l2 == l2
        && c.stepSize == stepSize && c.clipNorm == clipNorm && c.noiseMultiplier == noiseMultiplier
        && c.plan.equals(plan);
  }

  @Override
  public int hashCode() {
    return Objects.hash(featureClip, l2, stepSize, clipNorm, noiseMultiplier, plan);
  }

  @Override
  public String toString() {
    return String.format("softmax-regression(L=%s, λ=%s, η=%s, C=%s, z=%s, %s)", featureClip, l2, stepSize,
        clipNorm, noiseMultiplier, plan.describe());
  }
}
