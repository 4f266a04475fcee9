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
 * Blocks of both are interleaved and the medians compared, so load from other processes hits both alike.
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

  private static double millisPerStep(Runnable step) {
    long start = System.nanoTime();
    for (int i = 0; i < BLOCK; i++) {
      step.run();
    }
    return (System.nanoTime() - start) / 1e6 / BLOCK;
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
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
    for (int i = 0; i < 3; i++) {   // warm-up
      millisPerStep(fit);
      millisPerStep(dpStep);
      millisPerStep(clipOnly);
      millisPerStep(noiseOnly);
    }
    double[] fitMs = new double[rounds];
    double[] dpMs = new double[rounds];
    double[] clipMs = new double[rounds];
    double[] noiseMs = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      fitMs[r] = millisPerStep(fit);
      dpMs[r] = millisPerStep(dpStep);
      clipMs[r] = millisPerStep(clipOnly);
      noiseMs[r] = millisPerStep(noiseOnly);
    }
    double[] ratios = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      ratios[r] = dpMs[r] / fitMs[r];
    }
    System.out.printf("784-256-256-10 MLP, batch %d, float32, %d params, OMP_NUM_THREADS=%s, %d rounds x %d steps%n",
        BATCH, plain.numParams(), System.getenv("OMP_NUM_THREADS"), rounds, BLOCK);
    System.out.printf("DL4J fit (non-private)         : %.2f ms/step (median)%n", median(fitMs));
    System.out.printf("DpSgdStep (secure noise)       : %.2f ms/step (median)%n", median(dpMs));
    System.out.printf("  of which clipped sum (alone) : %.2f ms%n", median(clipMs));
    System.out.printf("  of which secure noise (alone): %.2f ms%n", median(noiseMs));
    System.out.printf("ratio DP step / fit            : %.3f (median of medians), %.3f (median of per-round ratios)%n",
        median(dpMs) / median(fitMs), median(ratios));
  }
}
