package org.dp4j.updater;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.PerExampleClipper;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * One DP-SGD step (secure noise) against DL4J's own non-private {@code fit} on the same batch: 784-256-256-10
 * ReLU MLP, softmax cross-entropy, batch 256, float32. The target is a ratio &le; 1.25. Not a test; run with
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-core/target/test-classes:dp4j-core/target/classes:$CP \
 *     org.dp4j.updater.DpSgdStepBenchmark [rounds]
 * </pre>
 * Blocks of each are interleaved; min, 10th percentile and median per step are printed (on a shared machine the
 * low quantiles are the most reproducible).
 */
public final class DpSgdStepBenchmark {
  private static final int BATCH = 256;
  private static final int BLOCK = 10;

  private DpSgdStepBenchmark() {
  }

  private static MultiLayerNetwork mlp(IUpdater updater) {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT)
        .updater(updater).weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(784).nOut(256).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(256).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784)).build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** Times {@code BLOCK} single steps into {@code out} starting at {@code from}. */
  private static void timeSteps(Runnable step, double[] out, int from) {
    for (int i = 0; i < BLOCK; i++) {
      long start = System.nanoTime();
      step.run();
      out[from + i] = (System.nanoTime() - start) / 1e6;
    }
  }

  private static double quantile(double[] xs, double q) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[(int) Math.floor(q * (s.length - 1))];
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    Nd4j.getRandom().setSeed(3);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
    INDArray y = Nd4j.zeros(DataType.FLOAT, BATCH, 10);
    for (int i = 0; i < BATCH; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    MultiLayerNetwork plain = mlp(new Sgd(0.01));
    DpSgd dp = DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(BATCH)
        .baseUpdater(new Sgd(0.01)).build();
    MultiLayerNetwork privateNet = mlp(dp);
    DpSgdStep step = DpSgdStep.of(privateNet);
    PerExampleClipper clipper = PerExampleClipper.of(mlp(dp));
    SecureGaussianNoise noise = new SecureGaussianNoise();
    INDArray noiseTarget = Nd4j.zeros(DataType.FLOAT, 1, plain.numParams());

    Runnable fit = () -> plain.fit(x, y);
    Runnable dpStep = () -> step.apply(x, y);
    Runnable clipOnly = () -> clipper.clippedSum(x, y, 1.0);
    Runnable noiseOnly = () -> noise.addGaussian(noiseTarget, 1.1);
    int samples = rounds * BLOCK;
    double[] fitMs = new double[samples];
    double[] dpMs = new double[samples];
    double[] clipMs = new double[samples];
    double[] noiseMs = new double[samples];
    for (int warmUp = 0; warmUp < 3; warmUp++) {
      timeSteps(fit, fitMs, 0);
      timeSteps(dpStep, dpMs, 0);
      timeSteps(clipOnly, clipMs, 0);
      timeSteps(noiseOnly, noiseMs, 0);
    }
    // Interleaved blocks: load from other processes falls on all four alike.
    for (int r = 0; r < rounds; r++) {
      timeSteps(fit, fitMs, r * BLOCK);
      timeSteps(dpStep, dpMs, r * BLOCK);
      timeSteps(clipOnly, clipMs, r * BLOCK);
      timeSteps(noiseOnly, noiseMs, r * BLOCK);
    }
    System.out.printf("784-256-256-10 MLP, batch %d, float32, %d params, OMP_NUM_THREADS=%s, %d steps each%n",
        BATCH, plain.numParams(), System.getenv("OMP_NUM_THREADS"), samples);
    System.out.println("ms/step                         min     p10  median");
    print("DL4J fit (non-private)", fitMs);
    print("DpSgdStep (secure noise)", dpMs);
    print("  clipped sum alone", clipMs);
    print("  secure noise alone", noiseMs);
    System.out.printf("ratio DP step / fit        %7.3f %7.3f %7.3f%n", quantile(dpMs, 0) / quantile(fitMs, 0),
        quantile(dpMs, 0.1) / quantile(fitMs, 0.1), quantile(dpMs, 0.5) / quantile(fitMs, 0.5));
  }

  private static void print(String label, double[] ms) {
    System.out.printf("%-26s %7.2f %7.2f %7.2f%n", label, quantile(ms, 0), quantile(ms, 0.1), quantile(ms, 0.5));
  }
}
