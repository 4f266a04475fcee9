package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Optional;
import java.util.function.Supplier;
import org.deeplearning4j.nn.api.Updater;
import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.PrefetchingNoise;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.updater.ClippableModel;
import org.dp4j.updater.PrivateGradient;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What a private DL4J model ({@link PrivateMultiLayerNetwork}, {@link PrivateComputationGraph}) keeps between its
 * overridden {@code fit} methods: the noise source, the {@link PrivateGradient}, the one sampling plan its batches
 * follow, the accountant that counts its steps, and whether a private step is running. Not thread-safe.
 */
final class PrivateFitState {
  private final Supplier<ClippableModel> model;
  private NoiseSource noise;
  private PrivateGradient privateGradient;
  private SamplingPlan plan;
  private Object accountant;
  private boolean stepping;
  private int dlDividesBy;

  PrivateFitState(Supplier<ClippableModel> model) {
    this.model = model;
  }

  void insecureNoise(NoiseSource noise) {
    checkState(privateGradient == null, "the noise source must be chosen before the first step");
    this.noise = checkNotNull(noise, "noise");
  }

  Optional<SamplingPlan> samplingPlan() {
    return Optional.ofNullable(plan);
  }

  boolean secureNoise() {
    return noise == null || noise.isSecure();
  }

  void claimAccounting(Object claimant) {
    checkNotNull(claimant, "claimant");
    checkState(accountant == null || accountant == claimant, "this network's steps are already counted by %s; a "
        + "second ledger (or a trainer and a listener together) would count every step twice", accountant);
    accountant = claimant;
  }

  boolean stepping() {
    return stepping;
  }

  /**
   * Runs DL4J's {@code fit} over {@code iterator} as private steps, after taking the plan of a
   * {@link SampledDataSetIterator} or {@link SampledMultiDataSetIterator}; refuses any other iterator, naming the
   * sampler to use.
   */
  void fitIterator(Object iterator, Runnable fit) {
    checkArgument(iterator instanceof DrawnBySampler, "%s is not a sampler the privacy accountant covers; "
        + "wrap the data in SampledDataSetIterator.poisson(IndexedData.of(dataSet), expectedBatchSize) (or "
        + "SampledDataSetIterator.shuffleOnce for the fixed-partition accountants; SampledMultiDataSetIterator for a "
        + "graph with several inputs or outputs)", iterator.getClass().getSimpleName());
    usePlan(((DrawnBySampler) iterator).plan());
    step(fit);
  }

  /**
   * Runs DL4J's {@code fit} on {@code batch} as one private step, after taking the plan of a {@link SampledBatch} or
   * {@link SampledMultiBatch}; refuses any other batch.
   */
  void fitBatch(Object batch, Runnable fit) {
    checkArgument(batch instanceof DrawnBySampler, "a private step needs a batch drawn by a sampler the accountant "
        + "covers, was %s; take batches from SampledDataSetIterator.poisson(...) or .shuffleOnce(...) "
        + "(SampledMultiDataSetIterator for a graph with several inputs or outputs)", batch.getClass().getSimpleName());
    usePlan(((DrawnBySampler) batch).plan());
    step(fit);
  }

  /**
   * Refuses DL4J's {@code fit} on raw arrays ({@code call}) unless a private step of this model is running: raw
   * arrays carry no sampling the accountant knows.
   */
  void checkRawArraysInsideStep(String call) {
    checkState(stepping, "%s on raw arrays is not a private step (the accountant cannot know how they were "
        + "sampled); fit a SampledDataSetIterator or its SampledBatch instead", call);
  }

  private void usePlan(SamplingPlan next) {
    checkArgument(plan == null || plan.equals(next), "this network trains on batches sampled as %s; it cannot "
        + "switch to %s (the accountant assumes one sampling scheme)", plan == null ? "" : plan.describe(),
        next.describe());
    plan = next;
  }

  /** Runs DL4J's {@code fit} as private steps: gradients are computed only inside, and DpSgd accepts them. */
  private void step(Runnable fit) {
    boolean outer = stepping;
    stepping = true;
    try {
      PrivateGradient.runPrivatised(fit);
    } finally {
      stepping = outer;
    }
  }

  /**
   * Writes the private gradient of one batch into the model's gradient view: clipped per-example sum and noise,
   * divided by the expected batch size unless DL4J's updater does that ({@link #batchSize}).
   */
  INDArray privateGradient(INDArray[] features, INDArray[] labels, INDArray[] featureMasks, INDArray[] labelMasks) {
    checkState(stepping, "gradients of a private network are computed only inside a private fit");
    PrivateGradient g = gradient();
    g.accumulate(features, labels, featureMasks, labelMasks);
    return dlDividesBy > 0 ? g.finishUndivided() : g.finish();
  }

  /**
   * Inside a private step, the expected batch size q·N when it is an integer (DL4J's updater divides the private sum
   * by it), else 1 (the gradient is already divided); never the realised batch size, which is data-dependent.
   */
  int batchSize(int outside) {
    return stepping ? Math.max(dlDividesBy, 1) : outside;
  }

  /**
   * Carries the updater state (momentum, Adam moments) of a restored private model into the private copy made by
   * {@code resume}; nothing if the restored model never had one.
   */
  static void copyUpdaterState(Updater restored, Supplier<Updater> copy) {
    if (restored != null && restored.getStateViewArray() != null) {
      copy.get().getStateViewArray().assign(restored.getStateViewArray());
    }
  }

  private PrivateGradient gradient() {
    if (privateGradient == null) {
      if (noise == null) {
        noise = PrefetchingNoise.secure();
      }
      privateGradient = PrivateGradient.of(model.get(), noise);
      double expected = privateGradient.config().expectedBatchSize();
      dlDividesBy = expected == Math.rint(expected) && expected <= (1 << 24) ? (int) expected : 0;
    }
    return privateGradient;
  }
}
