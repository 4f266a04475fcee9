package org.dp4j.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Per-step time of a distributed DP-SGD step (broadcast, executors' sampling and clipping, tree aggregation, noise
 * and update on the driver) in local[1] and local[2] against the single-machine {@link DpSgdStep} on the same
 * network and expected batch, interleaved in blocks in one process (load from other processes falls on both); and
 * the per-step overhead of broadcast + aggregation alone (about one record sampled per step) against the parameter
 * count. Not a test. Run (from the repository root, after {@code mvn -o -q -pl dp4j-spark -am test-compile}):
 * <pre>
 * mvn -o -q -pl dp4j-spark dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * OMP_NUM_THREADS=1 java $(spark test argLine of the parent pom) -cp dp4j-spark/target/test-classes:\
 *   dp4j-spark/target/classes:$(cat /tmp/cp.txt) org.dp4j.spark.SparkStepBenchmark
 * </pre>
 */
public final class SparkStepBenchmark {
  private static final int N = 20_000;
  private static final int BATCH = 256;
  private static final int ROUNDS = 6;
  private static final int BLOCK = 5;

  private SparkStepBenchmark() {
  }

  public static void main(String[] args) {
    Nd4j.setDefaultDataTypes(DataType.FLOAT, DataType.FLOAT);
    List<LabelledRecord> records = records(N, 784, 10);
    for (String master : new String[] {"local[1]", "local[2]"}) {
      try (JavaSparkContext sc = EmbeddedSpark.context(master, "dp4j-benchmark")) {
        JavaRDD<LabelledRecord> rdd = DriverRecords.distribute(sc, records, 2);
        rdd.count();
        compareWithSingleMachine(master, rdd, records);
        if (master.equals("local[2]")) {
          overheadByParameterCount(rdd);
        }
      }
    }
  }

  private static void compareWithSingleMachine(String master, JavaRDD<LabelledRecord> rdd,
      List<LabelledRecord> records) {
    DpSgd dp = dp(BATCH);
    MultiLayerNetwork single = mlp(256, dp);
    MultiLayerNetwork distributed = single.clone();
    DpSgdStep localStep = DpSgdStep.of(single);
    PoissonSampler sampler = PoissonSampler.withExpectedBatchSize(N, BATCH, AesCtrRandom.secure());
    INDArray x = features(records);
    INDArray y = labels(records);
    DpSgdStep driverStep = DpSgdStep.of(distributed);
    DistributedClippedSum sums = new DistributedClippedSum(rdd, ModelSpec.of(distributed), (double) BATCH / N, 1.0,
        256, 2);
    Runnable local = () -> {
      int[] batch = sampler.nextBatch();
      localStep.apply(x.getRows(batch), y.getRows(batch));
    };
    Runnable spark = () -> {
      driverStep.accumulateClippedSum(sums.compute(distributed.params()));
      driverStep.step();
    };
    double[][] ms = interleave(local, spark);
    System.out.printf(Locale.ROOT, "%s, MLP 784-256-10 (%d params), n = %d, expected batch %d: single-machine "
            + "DpSgdStep median %.1f ms/step, Spark %s median %.1f ms/step (ratio %.2f)%n", master,
        single.numParams(), N, BATCH, median(ms[0]), master, median(ms[1]), median(ms[1]) / median(ms[0]));
    sums.close();
  }

  private static void overheadByParameterCount(JavaRDD<LabelledRecord> rdd) {
    for (int hidden : new int[] {1, 16, 128, 1024}) {
      MultiLayerNetwork net = mlp(hidden, dp(1));
      DistributedClippedSum sums = new DistributedClippedSum(rdd, ModelSpec.of(net), 1.0 / N, 1.0, 256, 2);
      for (int i = 0; i < 5; i++) {
        sums.compute(net.params());
      }
      double[] ms = new double[20];
      for (int i = 0; i < ms.length; i++) {
        long start = System.nanoTime();
        sums.compute(net.params());
        ms[i] = (System.nanoTime() - start) / 1e6;
      }
      System.out.printf(Locale.ROOT, "local[2], 2 partitions, about 1 record sampled per step: %d params, "
          + "broadcast + sample + aggregate median %.1f ms%n", net.numParams(), median(ms));
      sums.close();
    }
  }

  /** Warm-up, then ROUNDS rounds of BLOCK runs of each case in turn. */
  private static double[][] interleave(Runnable a, Runnable b) {
    for (int i = 0; i < BLOCK; i++) {
      a.run();
      b.run();
    }
    double[][] ms = new double[2][ROUNDS * BLOCK];
    for (int r = 0; r < ROUNDS; r++) {
      for (int c = 0; c < 2; c++) {
        for (int i = 0; i < BLOCK; i++) {
          long start = System.nanoTime();
          (c == 0 ? a : b).run();
          ms[c][r * BLOCK + i] = (System.nanoTime() - start) / 1e6;
        }
      }
    }
    return ms;
  }

  private static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static DpSgd dp(int batch) {
    return DpSgd.builder().clipNorm(1).noiseMultiplier(1).expectedBatchSize(batch).baseUpdater(new Sgd(0.1)).build();
  }

  private static MultiLayerNetwork mlp(int hidden, DpSgd dp) {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1)
        .dataType(DataType.FLOAT).updater(dp).weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(784).nOut(hidden).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(hidden).nOut(10).activation(Activation.SOFTMAX)
            .build())
        .build());
    net.init();
    return net;
  }

  private static List<LabelledRecord> records(int n, int features, int classes) {
    Random random = new Random(9);
    List<LabelledRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float[] x = new float[features];
      for (int j = 0; j < features; j++) {
        x[j] = random.nextFloat();
      }
      float[] y = new float[classes];
      y[random.nextInt(classes)] = 1;
      records.add(new LabelledRecord(x, y));
    }
    return records;
  }

  private static INDArray features(List<LabelledRecord> records) {
    float[][] x = new float[records.size()][];
    Arrays.setAll(x, i -> records.get(i).features());
    return Nd4j.create(x);
  }

  private static INDArray labels(List<LabelledRecord> records) {
    float[][] y = new float[records.size()][];
    Arrays.setAll(y, i -> records.get(i).labels());
    return Nd4j.create(y);
  }
}
