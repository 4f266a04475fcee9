package org.dp4j.spark;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The distributed half of one DP-SGD step, run from the driver: broadcast the parameters, let every partition
 * Poisson-sample and clip its records ({@link ClippedSumTask}), tree-aggregate the partial sums. One Spark job per
 * call; the sum it returns is the clipped sum of one Poisson sample of the whole data set, before noise.
 */
final class DistributedClippedSum {
  private final JavaRDD<LabelledRecord> data;
  private final JavaSparkContext sc;
  private final Broadcast<ModelSpec> spec;
  private final double rate;
  private final double clipNorm;
  private final int microBatch;
  private final int treeDepth;

  DistributedClippedSum(JavaRDD<LabelledRecord> data, ModelSpec spec, double rate, double clipNorm, int microBatch,
      int treeDepth) {
    checkArgument(microBatch > 0, "microBatchSize must be > 0, was %s", microBatch);
    checkArgument(treeDepth >= 1, "treeDepth must be >= 1, was %s", treeDepth);
    this.data = data;
    this.sc = JavaSparkContext.fromSparkContext(data.context());
    this.spec = sc.broadcast(spec);
    this.rate = rate;
    this.clipNorm = clipNorm;
    this.microBatch = microBatch;
    this.treeDepth = treeDepth;
  }

  /**
   * Σ_i clip_C(g_i) at {@code params} over a fresh Poisson sample, as a [1, numParams] array in the parameters' type.
   * Throws Spark's exception if the job fails (nothing of it is used then).
   */
  INDArray compute(INDArray params) {
    Broadcast<ParameterVector> broadcast = sc.broadcast(ParameterVector.of(params));
    try {
      return data.mapPartitions(new ClippedSumTask(spec, broadcast, rate, clipNorm, microBatch))
          .treeReduce(ParameterVector::addInPlace, treeDepth)
          .toRow();
    } finally {
      broadcast.destroy();
    }
  }

  /** Releases the architecture broadcast. */
  void close() {
    spec.destroy();
  }
}
