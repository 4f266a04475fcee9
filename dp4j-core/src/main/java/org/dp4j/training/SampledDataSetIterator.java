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
public final class SampledDataSetIterator implements DataSetIterator, DrawnBySampler {
  private static final long serialVersionUID = 1L;

  private final transient IndexedData data;
  private final transient SamplerCursor cursor;
  private transient DataSetPreProcessor preProcessor;

  private SampledDataSetIterator(IndexedData data, BatchSampler sampler) {
    this.data = checkNotNull(data, "data");
    this.cursor = new SamplerCursor(sampler, data.size());
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

  /** How batches are drawn: scheme, n, q, expected batch size, steps per epoch. */
  @Override
  public SamplingPlan plan() {
    return cursor.plan();
  }

  /** Batches left in the current epoch. */
  public int remainingInEpoch() {
    return cursor.remainingInEpoch();
  }

  @Override
  public boolean hasNext() {
    return cursor.hasNext();
  }

  @Override
  public SampledBatch next() {
    DataSet rows = data.rows(cursor.next());
    if (preProcessor != null && rows.numExamples() > 0) {
      preProcessor.preProcess(rows);
    }
    return new SampledBatch(rows, cursor.plan());
  }

  /** Refused: the batch size is the sampler's, not the caller's. */
  @Override
  public DataSet next(int num) {
    throw cursor.fixedSizeRefused();
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
  public boolean resetSupported() {
    return true;
  }

  /** Off: batches are drawn on the training thread, one at a time, as the steps are taken. */
  @Override
  public boolean asyncSupported() {
    return false;
  }

  /**
   * Starts a new epoch. The sampler is not rewound: Poisson batches are fresh draws anyway, and a shuffle-once
   * partition keeps its cyclic order (its accountant assumes that order, not a restart).
   */
  @Override
  public void reset() {
    cursor.reset();
  }

  @Override
  public int batch() {
    return (int) Math.round(cursor.plan().expectedBatchSize());
  }

  /** A per-example transformation (e.g. a normaliser fitted on public statistics) applied to each batch. */
  @Override
  public void setPreProcessor(DataSetPreProcessor preProcessor) {
    this.preProcessor = preProcessor;
  }

  @Override
  public DataSetPreProcessor getPreProcessor() {
    return preProcessor;
  }

  @Override
  public List<String> getLabels() {
    return null;
  }
}
