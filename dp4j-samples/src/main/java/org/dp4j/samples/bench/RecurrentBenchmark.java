package org.dp4j.samples.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.PerExampleClipper;
import org.dp4j.samples.train.MnistLstm;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Per-step cost of the recurrent per-example rules against DL4J's own non-private {@code fit} on the same batch and
 * model, interleaved in one process (float32, batch 256, row-sequential MNIST shape: 28 steps of 28 inputs): the
 * {@code dp4j train --model lstm} network (LastTimeStep(LSTM 64) → softmax) and the same with a SimpleRnn; for each,
 * the clipped per-example sum alone and the whole DP-SGD step (clipping, secure noise, update), and DL4J's gradient
 * one example at a time (the slow exact reference) for scale.
 *
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.RecurrentBenchmark [rounds]
 * </pre>
 */
public final class RecurrentBenchmark {
  private static final int BATCH = 256;

  private RecurrentBenchmark() {
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Nd4j.getEnvironment().setMaxThreads(1);
    Nd4j.getRandom().setSeed(5);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, MnistLstm.STEPS, MnistLstm.PIXELS);
    INDArray y = Nd4j.zeros(DataType.FLOAT, BATCH, 10);
    for (int i = 0; i < BATCH; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    List<Measurement> rows = new ArrayList<>();
    rows.addAll(model("lstm", updater -> ModelZoo.mnistLstm(updater, 1, 64), x, y, rounds));
    rows.addAll(model("simplernn", RecurrentBenchmark::simpleRnn, x, y, rounds));
    System.out.printf(Locale.ROOT, "%-32s %9s %9s %9s   %s%n", "case (ms per step)", "min", "p10", "median",
        "ratio to baseline (min / p10 / median)");
    for (Measurement m : rows) {
      Measurement base = rows.stream().filter(r -> r.name().equals(m.baseline())).findFirst().orElse(null);
      String ratio = base == null ? "" : String.format(Locale.ROOT, "%.2f / %.2f / %.2f", m.min() / base.min(),
          m.p10() / base.p10(), m.median() / base.median());
      System.out.printf(Locale.ROOT, "%-32s %9.2f %9.2f %9.2f   %s%n", m.name(), m.min(), m.p10(), m.median(),
          ratio);
    }
  }

  private static MultiLayerConfiguration simpleRnn(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new LastTimeStep(new SimpleRnn.Builder().nIn(MnistLstm.PIXELS).nOut(64).activation(Activation.TANH)
            .dataFormat(RNNFormat.NWC).build()))
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(64).nOut(10)
            .activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(MnistLstm.PIXELS, MnistLstm.STEPS, RNNFormat.NWC))
        .build();
  }

  private static List<Measurement> model(String name, java.util.function.Function<IUpdater,
      MultiLayerConfiguration> conf, INDArray x, INDArray y, int rounds) {
    MultiLayerNetwork plain = new MultiLayerNetwork(conf.apply(new Sgd(0.01)));
    plain.init();
    MultiLayerNetwork privateNet = new MultiLayerNetwork(conf.apply(DpSgd.builder().clipNorm(1.0)
        .noiseMultiplier(1.0).expectedBatchSize(BATCH).baseUpdater(new Sgd(0.01)).build()));
    privateNet.init();
    DpSgdStep step = DpSgdStep.of(privateNet);
    PerExampleClipper clipper = PerExampleClipper.of(privateNet);
    INDArray target = Nd4j.create(DataType.FLOAT, 1, privateNet.numParams());
    List<Measurement> rows = new ArrayList<>(new InterleavedTimer(5, 2, n -> { }, () -> { })
        .add(name + ".fit", "", 1, () -> plain.fit(x, y))
        .add(name + ".clippedsum", name + ".fit", 1, () -> clipper.clippedSum(x, y, 1.0, target))
        .add(name + ".dpstep", name + ".fit", 1, () -> step.apply(x, y))
        .run(rounds));
    rows.addAll(new InterleavedTimer(1, 0, n -> { }, () -> { })
        .add(name + ".exact", name + ".clippedsum", 1,
            () -> ExactPerExampleGradients.perExample(privateNet, x, y))
        .run(2));
    return rows;
  }
}
