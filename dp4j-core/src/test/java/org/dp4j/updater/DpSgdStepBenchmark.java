package org.dp4j.updater;

import static org.dp4j.bench.StepTimings.print;
import static org.dp4j.bench.StepTimings.time;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.bench.StepTimings;
import org.dp4j.clipping.PerExampleClipper;
import org.dp4j.noise.GaussianNoise;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * One DP-SGD step ({@link DpSgdStep}, secure noise) against DL4J's own non-private {@code fit} on the same batch,
 * float32: the 784-256-256-10 ReLU MLP with batch 256 (project target: ratio &le; 1.25), then a small MNIST-shaped
 * CNN with batch 128 for information. Not a test; run with
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-core/target/test-classes:dp4j-core/target/classes:$CP \
 *     org.dp4j.updater.DpSgdStepBenchmark [rounds]
 * </pre>
 * Blocks of each are interleaved; min, 10th percentile and median per step are printed (on a shared machine the
 * low quantiles are the most reproducible).
 */
public final class DpSgdStepBenchmark {
  private DpSgdStepBenchmark() {
  }

  private static NeuralNetConfiguration.ListBuilder base(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list();
  }

  private static MultiLayerNetwork mlp(IUpdater updater) {
    return init(base(updater)
        .layer(new DenseLayer.Builder().nIn(784).nOut(256).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(256).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784)));
  }

  private static MultiLayerNetwork cnn(IUpdater updater) {
    return init(base(updater)
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(16).stride(2, 2).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build())
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(32).stride(2, 2).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)));
  }

  private static MultiLayerNetwork init(NeuralNetConfiguration.ListBuilder builder) {
    MultiLayerNetwork net = new MultiLayerNetwork(builder.build());
    net.init();
    return net;
  }

  private static DpSgd dp(int batch) {
    return DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(batch).baseUpdater(new Sgd(0.01))
        .build();
  }

  private static void printRatio(double[] dp, double[] fit) {
    StepTimings.printRatio("ratio DP step / fit", dp, fit);
  }

  private static INDArray oneHot(int batch) {
    INDArray y = Nd4j.zeros(DataType.FLOAT, batch, 10);
    for (int i = 0; i < batch; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    return y;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    System.out.printf("float32, OMP_NUM_THREADS=%s, %d steps each; ms/step as min / p10 / median%n",
        System.getenv("OMP_NUM_THREADS"), StepTimings.stepsPer(rounds));
    Nd4j.getRandom().setSeed(3);

    int batch = 256;
    INDArray x = Nd4j.rand(DataType.FLOAT, batch, 784);
    INDArray y = oneHot(batch);
    MultiLayerNetwork plain = mlp(new Sgd(0.01));
    DpSgdStep step = DpSgdStep.of(mlp(dp(batch)));
    PerExampleClipper clipper = PerExampleClipper.of(mlp(dp(batch)));
    GaussianNoise noise = GaussianNoise.secure();
    INDArray noiseTarget = Nd4j.zeros(DataType.FLOAT, 1, plain.numParams());
    double[][] ms = time(rounds, () -> plain.fit(x, y), () -> step.apply(x, y),
        () -> clipper.clippedSum(x, y, 1.0), () -> noise.addGaussian(noiseTarget, 1.1));
    System.out.printf("784-256-256-10 MLP, batch %d, %d parameters%n", batch, plain.numParams());
    print("DL4J fit (non-private)", ms[0]);
    print("DpSgdStep (secure noise)", ms[1]);
    print("  clipped sum alone", ms[2]);
    print("  secure noise alone", ms[3]);
    printRatio(ms[1], ms[0]);

    int cnnBatch = 128;
    INDArray images = Nd4j.rand(DataType.FLOAT, cnnBatch, 784);
    INDArray labels = oneHot(cnnBatch);
    MultiLayerNetwork plainCnn = cnn(new Sgd(0.01));
    DpSgdStep cnnStep = DpSgdStep.of(cnn(dp(cnnBatch)));
    double[][] cnnMs = time(Math.max(1, rounds / 3), () -> plainCnn.fit(images, labels),
        () -> cnnStep.apply(images, labels));
    System.out.printf("CNN conv5x5/2(16)-maxpool-conv3x3/2(32)-dense64-10 on 28x28, batch %d, %d parameters%n",
        cnnBatch, plainCnn.numParams());
    print("DL4J fit (non-private)", cnnMs[0]);
    print("DpSgdStep (secure noise)", cnnMs[1]);
    printRatio(cnnMs[1], cnnMs[0]);
  }
}
