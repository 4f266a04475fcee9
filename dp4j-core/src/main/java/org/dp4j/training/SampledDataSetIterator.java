package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.List;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.ShuffleOncePartition;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * A DL4J {@link DataSetIterator} whose batches are drawn the way the accountant assumes: Poisson sampling (each
 * record joins each step's batch independently with probability q; batches vary in size and may be empty) or a
 * shuffle-once fixed partition, with a cryptographically secure generator ({@link AesCtrRandom#secure()}) over any
 * random-access data ({@link IndexedData}: an in-memory {@code DataSet}, MNIST images, or your own record source).
 * An epoch is {@link SamplingPlan#stepsPerEpoch()} batches; an empty Poisson batch is a normal step (the private
 * network adds the noise, the accountant counts the step). A {@link PrivateMultiLayerNetwork} refuses any other
 * iterator; for a {@code ComputationGraph} with several inputs or outputs use {@link SampledMultiDataSetIterator}.
 *
 * <pre>{@code
 * // given: PrivateMultiLayerNetwork net; org.nd4j.linalg.dataset.DataSet trainSet
 * SampledDataSetIterator train = SampledDataSetIterator.poisson(IndexedData.of(trainSet), 256);
 * net.fit(train, 20);                               // net: a PrivateMultiLayerNetwork
 * }</pre>
 *
 * <p>Not thread-safe; asynchronous prefetching is off (DL4J's {@code AsyncDataSetIterator} would draw batches on
 * another thread ahead of the budget check).
 */
public final class SampledDataSetIterator extends SamplerIterator<DataSet, DataSetPreProcessor>
    implements DataSetIterator {
  private static final long serialVersionUID = 1L;

  private final transient IndexedData data;

  private SampledDataSetIterator(IndexedData data, BatchSampler sampler) {
    super(sampler, checkNotNull(data, "data").size());
    this.data = data;
  }

  /** Poisson sampling with rate q = expectedBatchSize / n from a secure generator. */
  public static SampledDataSetIterator poisson(IndexedData data, int expectedBatchSize) {
    return poisson(data, expectedBatchSize, AesCtrRandom.secure());
  }

  /** Poisson sampling over the rows of an in-memory DataSet, from a secure generator. */
  public static SampledDataSetIterator poisson(DataSet data, int expectedBatchSize) {
    return poisson(IndexedData.of(data), expectedBatchSize);
  }

  /** Poisson sampling with the given generator (secure in production; a fixed seed only in tests). */
  public static SampledDataSetIterator poisson(IndexedData data, int expectedBatchSize, AesCtrRandom random) {
    return of(data, PoissonSampler.withExpectedBatchSize(data.size(), expectedBatchSize, random));
  }

  /** One secret permutation cut into ⌊n/b⌋ batches of b, visited in the same order every epoch. */
  public static SampledDataSetIterator shuffleOnce(IndexedData data, int batchSize) {
    return shuffleOnce(data, batchSize, AesCtrRandom.secure());
  }

  /** Shuffle-once partition with the given generator. */
  public static SampledDataSetIterator shuffleOnce(IndexedData data, int batchSize, AesCtrRandom random) {
    return of(data, new ShuffleOncePartition(data.size(), batchSize, random));
  }

  /** Any dp4j {@link BatchSampler} (its plan tells the accountant how batches are drawn). */
  public static SampledDataSetIterator of(IndexedData data, BatchSampler sampler) {
    return new SampledDataSetIterator(data, sampler);
  }

  @Override
  public SampledBatch next() {
    return new SampledBatch(nextRows(), plan());
  }

  @Override
  DataSet rows(int[] indices) {
    return data.rows(indices);
  }

  @Override
  long size(DataSet batch) {
    return batch.numExamples();
  }

  @Override
  void preProcess(DataSetPreProcessor preProcessor, DataSet batch) {
    preProcessor.preProcess(batch);
  }

  @Override
  public int inputColumns() {
    return -1;
  }

  @Override
  public int totalOutcomes() {
    return -1;
  }

  @Override
  public int batch() {
    return (int) Math.round(plan().expectedBatchSize());
  }

  @Override
  public List<String> getLabels() {
    return null;
  }
}
