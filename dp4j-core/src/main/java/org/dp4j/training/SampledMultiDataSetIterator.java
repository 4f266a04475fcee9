package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;

import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.ShuffleOncePartition;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.MultiDataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * The {@link MultiDataSetIterator} counterpart of {@link SampledDataSetIterator}, for a
 * {@link PrivateComputationGraph} with several inputs or outputs: batches drawn the way the accountant assumes —
 * Poisson sampling (each record joins each step's batch independently with probability q; batches may be empty) or
 * a shuffle-once fixed partition — with a cryptographically secure generator ({@link AesCtrRandom#secure()}), over
 * any random-access multi-input data ({@link IndexedMultiData}: an in-memory {@code MultiDataSet} or your own record
 * source). An epoch is {@link SamplingPlan#stepsPerEpoch()} batches; an empty Poisson batch is a normal step (noise
 * only). A private graph refuses any other {@code MultiDataSetIterator}.
 *
 * <pre>{@code
 * // given: PrivateComputationGraph graph; org.nd4j.linalg.dataset.api.MultiDataSet trainSet
 * SampledMultiDataSetIterator train = SampledMultiDataSetIterator.poisson(IndexedMultiData.of(trainSet), 256);
 * graph.addListeners(PrivacyLedgerListener.forNetwork(graph, train.plan(), 1e-5).build());   // dp4j-listeners
 * graph.fit(train, 20);                                  // graph: a PrivateComputationGraph
 * }</pre>
 *
 * <p>Not thread-safe; asynchronous prefetching is off (batches are drawn on the training thread, as the steps are
 * taken, never ahead of the budget check).
 */
public final class SampledMultiDataSetIterator extends SamplerIterator<MultiDataSet, MultiDataSetPreProcessor>
    implements MultiDataSetIterator {
  private static final long serialVersionUID = 1L;

  private final transient IndexedMultiData data;

  private SampledMultiDataSetIterator(IndexedMultiData data, BatchSampler sampler) {
    super(sampler, checkNotNull(data, "data").size());
    this.data = data;
  }

  /** Poisson sampling with rate q = expectedBatchSize / n from a secure generator. */
  public static SampledMultiDataSetIterator poisson(IndexedMultiData data, int expectedBatchSize) {
    return poisson(data, expectedBatchSize, AesCtrRandom.secure());
  }

  /** Poisson sampling over the records of an in-memory MultiDataSet, from a secure generator. */
  public static SampledMultiDataSetIterator poisson(MultiDataSet data, int expectedBatchSize) {
    return poisson(IndexedMultiData.of(data), expectedBatchSize);
  }

  /** Poisson sampling with the given generator (secure in production; a fixed seed only in tests). */
  public static SampledMultiDataSetIterator poisson(IndexedMultiData data, int expectedBatchSize,
      AesCtrRandom random) {
    return of(data, PoissonSampler.withExpectedBatchSize(data.size(), expectedBatchSize, random));
  }

  /** One secret permutation cut into ⌊n/b⌋ batches of b, visited in the same order every epoch. */
  public static SampledMultiDataSetIterator shuffleOnce(IndexedMultiData data, int batchSize) {
    return shuffleOnce(data, batchSize, AesCtrRandom.secure());
  }

  /** Shuffle-once partition with the given generator. */
  public static SampledMultiDataSetIterator shuffleOnce(IndexedMultiData data, int batchSize, AesCtrRandom random) {
    return of(data, new ShuffleOncePartition(data.size(), batchSize, random));
  }

  /** Any dp4j {@link BatchSampler} (its plan tells the accountant how batches are drawn). */
  public static SampledMultiDataSetIterator of(IndexedMultiData data, BatchSampler sampler) {
    return new SampledMultiDataSetIterator(data, sampler);
  }

  @Override
  public SampledMultiBatch next() {
    return new SampledMultiBatch(nextRows(), plan());
  }

  @Override
  MultiDataSet rows(int[] indices) {
    return data.rows(indices);
  }

  @Override
  long size(MultiDataSet batch) {
    return batch.getFeatures(0).size(0);
  }

  @Override
  void preProcess(MultiDataSetPreProcessor preProcessor, MultiDataSet batch) {
    preProcessor.preProcess(batch);
  }
}
