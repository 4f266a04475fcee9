package org.dp4j.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.PoissonInclusion;
import org.dp4j.updater.ClippableModel;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What one executor does for one step on one partition: include each of its records independently with probability
 * q (a {@link PoissonInclusion} coin from a fresh {@link AesCtrRandom#secure()} generator per task), and return the
 * clipped per-example gradient sum Σ_i clip_C(g_i) of the included records at the broadcast parameters, computed by
 * dp4j's vectorised clipper in micro-batches of at most {@code microBatch} rows. The union over partitions is one
 * Poisson sample of the whole data set (Abadi et al. 2016, Alg. 1; docs/sampling.md#poisson). The returned vector is
 * all that leaves the executor: no record, no count; an empty sample returns zeros of the same length.
 *
 * <p>A task attempt other than the first (Spark's retry of a failed task, a speculative copy, a stage recomputed
 * after a lost executor) refuses to run: its sample would replace or join one that may already have been used, so
 * the step's job fails instead and {@link SparkDpSgdTrainer} applies its failure policy to the whole step.
 */
final class ClippedSumTask implements FlatMapFunction<Iterator<LabelledRecord>, ParameterVector> {
  private static final long serialVersionUID = 1L;
  static final String RETRY_REFUSED = "dp4j: a DP-SGD step's task was retried";

  private final Broadcast<ModelSpec> spec;
  private final Broadcast<ParameterVector> params;
  private final double rate;
  private final double clipNorm;
  private final int microBatch;

  ClippedSumTask(Broadcast<ModelSpec> spec, Broadcast<ParameterVector> params, double rate, double clipNorm,
      int microBatch) {
    this.spec = spec;
    this.params = params;
    this.rate = rate;
    this.clipNorm = clipNorm;
    this.microBatch = microBatch;
  }

  @Override
  public Iterator<ParameterVector> call(Iterator<LabelledRecord> records) {
    refuseRetriedAttempt();
    ClippableModel model = ExecutorModels.at(spec.value(), params.value());
    INDArray sum = Nd4j.zeros(model.gradientView().dataType(), model.gradientView().shape());
    PoissonInclusion coin = PoissonInclusion.withRate(rate, AesCtrRandom.secure());
    List<LabelledRecord> batch = new ArrayList<>(Math.min(microBatch, 4096));
    while (records.hasNext()) {
      LabelledRecord r = records.next();
      if (coin.next()) {
        batch.add(r);
        if (batch.size() == microBatch) {
          addClipped(model, batch, sum);
        }
      }
    }
    addClipped(model, batch, sum);
    return List.of(ParameterVector.of(sum)).iterator();
  }

  private void addClipped(ClippableModel model, List<LabelledRecord> batch, INDArray sum) {
    if (batch.isEmpty()) {
      return;
    }
    float[][] x = new float[batch.size()][];
    float[][] y = new float[batch.size()][];
    for (int i = 0; i < x.length; i++) {
      x[i] = batch.get(i).features();
      y[i] = batch.get(i).labels();
    }
    var type = sum.dataType();
    model.addClippedSum(new INDArray[] {Nd4j.create(x).castTo(type)}, new INDArray[] {Nd4j.create(y).castTo(type)},
        null, null, clipNorm, sum);
    batch.clear();
  }

  private static void refuseRetriedAttempt() {
    TaskContext context = TaskContext.get();
    if (context != null && (context.attemptNumber() > 0 || context.stageAttemptNumber() > 0)) {
      throw new IllegalStateException(String.format("%s (partition %d, attempt %d, stage attempt %d); it is not "
          + "re-run inside the step, whose job fails instead (see SparkDpSgdTrainer.Builder#maxStepAttempts)",
          RETRY_REFUSED, context.partitionId(), context.attemptNumber(), context.stageAttemptNumber()));
    }
  }
}
