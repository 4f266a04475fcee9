package org.dp4j.training;

import java.io.Serializable;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.sampling.SamplingPlan;

/**
 * What the two sampler iterators share ({@link SampledDataSetIterator} over {@link IndexedData},
 * {@link SampledMultiDataSetIterator} over {@link IndexedMultiData}): the epoch position of the sampler, the
 * pre-processor applied to each non-empty batch, and the refusals (no caller-chosen batch size, no asynchronous
 * prefetching). A subclass says only how records are read and how a pre-processor is applied to them.
 *
 * @param <R> a batch of records ({@code DataSet} or {@code MultiDataSet})
 * @param <P> the pre-processor type of that batch
 */
abstract class SamplerIterator<R, P> implements DrawnBySampler, Serializable {
  private static final long serialVersionUID = 1L;

  private final transient SamplerCursor cursor;
  private transient P preProcessor;

  SamplerIterator(BatchSampler sampler, int datasetSize) {
    this.cursor = new SamplerCursor(sampler, datasetSize);
  }

  /** The records at {@code indices}; zero rows for an empty array (an empty Poisson batch). */
  abstract R rows(int[] indices);

  /** Number of records in {@code batch}. */
  abstract long size(R batch);

  /** Applies {@code preProcessor} to {@code batch} in place. */
  abstract void preProcess(P preProcessor, R batch);

  /**
   * The next batch of the epoch, pre-processed unless empty (a pre-processor need not accept zero rows; an empty
   * batch is still a step: the private network adds noise only and the accountant counts it).
   */
  final R nextRows() {
    R rows = rows(cursor.next());
    if (preProcessor != null && size(rows) > 0) {
      preProcess(preProcessor, rows);
    }
    return rows;
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

  public boolean hasNext() {
    return cursor.hasNext();
  }

  /** Refused: the batch size is the sampler's, not the caller's. */
  public R next(int num) {
    throw cursor.fixedSizeRefused();
  }

  public boolean resetSupported() {
    return true;
  }

  /** Off: batches are drawn on the training thread, one at a time, as the steps are taken. */
  public boolean asyncSupported() {
    return false;
  }

  /**
   * Starts a new epoch. The sampler is not rewound: Poisson batches are fresh draws anyway, and a shuffle-once
   * partition keeps its cyclic order (its accountant assumes that order, not a restart).
   */
  public void reset() {
    cursor.reset();
  }

  /** A per-example transformation (e.g. a normaliser fitted on public statistics) applied to each batch. */
  public void setPreProcessor(P preProcessor) {
    this.preProcessor = preProcessor;
  }

  public P getPreProcessor() {
    return preProcessor;
  }
}
