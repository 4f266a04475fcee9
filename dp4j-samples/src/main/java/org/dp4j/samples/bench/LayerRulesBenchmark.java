package org.dp4j.samples.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.PerExampleClipper;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Per-step cost of the vectorised per-example rules for embeddings, PReLU, layer norm and the convolution variants:
 * for each, a small model where that layer carries the work, a DP-SGD step ({@code DpSgdStep}: per-example norms,
 * clipped sum, noise, update) and the clipped sum alone ({@code PerExampleClipper}: forward, per-example backward,
 * norms, Σ clip(g_i)) against DL4J's non-private {@code fit} on the same batch (float32, batch 64, one thread),
 * interleaved in blocks of 10 runs in one process; prints min / p10 / median ms and the ratios.
 *
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.LayerRulesBenchmark \
 *     [--rounds 10] [--only embedding,embedding-sequence,conv1d,conv3d,depthwise,separable,deconv2d,prelu,layernorm]
 * </pre>
 */
public final class LayerRulesBenchmark {
  private static final int BATCH = 64;

  private LayerRulesBenchmark() {
  }

  /** One model: its hidden layer(s), the input shape and, for token inputs, the vocabulary size. */
  private record Model(String name, List<Layer> layers, long[] inputShape, int vocabulary) {}

  public static void main(String[] args) {
    int rounds = 10;
    List<String> only = List.of();
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--only" -> only = List.of(args[i + 1].split(","));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: [--rounds R] [--only embedding,conv1d,...]");
      }
    }
    Nd4j.getEnvironment().setMaxThreads(1);
    Nd4j.getEnvironment().setMaxMasterThreads(1);
    Nd4j.factory().blas().setMaxThreads(1);
    List<Model> models = List.of(
        new Model("embedding", List.of(new EmbeddingLayer.Builder().nIn(5000).nOut(64).build(),
            new DenseLayer.Builder().nIn(64).nOut(64).activation(Activation.RELU).build()), new long[] {BATCH, 1},
            5000),
        new Model("embedding-sequence", List.of(new EmbeddingSequenceLayer.Builder().nIn(5000).nOut(64)
            .inputLength(64).build(), pool()), new long[] {BATCH, 64}, 5000),
        new Model("conv1d", List.of(new Convolution1DLayer.Builder(5).nIn(32).nOut(64)
            .activation(Activation.RELU).build(), pool()), new long[] {BATCH, 32, 64}, 0),
        new Model("conv3d", List.of(new Convolution3D.Builder().kernelSize(3, 3, 3).nIn(4).nOut(16)
            .activation(Activation.RELU).build(), pool()), new long[] {BATCH, 4, 10, 10, 10}, 0),
        new Model("depthwise", List.of(new DepthwiseConvolution2D.Builder(3, 3).nIn(16).depthMultiplier(2)
            .nOut(32).dataFormat(CNN2DFormat.NCHW).activation(Activation.RELU).build(), pool()), new long[] {BATCH, 16, 16, 16}, 0),
        new Model("separable", List.of(new SeparableConvolution2D.Builder(3, 3).nIn(16).depthMultiplier(1)
            .nOut(32).dataFormat(CNN2DFormat.NCHW).activation(Activation.RELU).build(), pool()), new long[] {BATCH, 16, 16, 16}, 0),
        new Model("deconv2d", List.of(new Deconvolution2D.Builder(3, 3).stride(2, 2).nIn(16).nOut(16).dataFormat(CNN2DFormat.NCHW)
            .activation(Activation.RELU).build(), pool()), new long[] {BATCH, 16, 8, 8}, 0),
        new Model("prelu", List.of(new DenseLayer.Builder().nIn(784).nOut(256).build(),
            new PReLULayer.Builder().inputShape(256).build()), new long[] {BATCH, 784}, 0),
        new Model("layernorm", List.of(new DenseLayer.Builder().nIn(784).nOut(256).hasLayerNorm(true)
            .activation(Activation.RELU).build()), new long[] {BATCH, 784}, 0));
    List<Measurement> rows = new ArrayList<>();
    for (Model model : models) {
      if (only.isEmpty() || only.contains(model.name())) {
        rows.addAll(measure(model, rounds));
      }
    }
    print(rows);
  }

  private static GlobalPoolingLayer pool() {
    return new GlobalPoolingLayer.Builder(PoolingType.AVG).build();
  }

  private static List<Measurement> measure(Model model, int rounds) {
    Nd4j.getRandom().setSeed(1);
    INDArray x = model.vocabulary() > 0
        ? Nd4j.rand(DataType.FLOAT, model.inputShape()).muli(model.vocabulary() - 1).castTo(DataType.INT32)
            .castTo(DataType.FLOAT)
        : Nd4j.rand(DataType.FLOAT, model.inputShape());
    INDArray y = Nd4j.zeros(DataType.FLOAT, BATCH, 10);
    for (int i = 0; i < BATCH; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    Function<IUpdater, MultiLayerNetwork> build = updater -> {
      NeuralNetConfiguration.ListBuilder list = new NeuralNetConfiguration.Builder().seed(1)
          .dataType(DataType.FLOAT).updater(updater).weightInit(WeightInit.XAVIER).list();
      model.layers().forEach(l -> list.layer(l.clone()));
      long width = model.layers().get(model.layers().size() - 1) instanceof GlobalPoolingLayer
          ? outChannels(model.layers().get(0)) : outChannels(model.layers().get(model.layers().size() - 1));
      MultiLayerConfiguration conf = list.layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(width).nOut(10)
          .activation(Activation.SOFTMAX).build()).build();
      MultiLayerNetwork net = new MultiLayerNetwork(conf);
      net.init();
      return net;
    };
    MultiLayerNetwork plain = build.apply(new Sgd(0.01));
    DpSgdStep step = DpSgdStep.of(build.apply(DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1)
        .expectedBatchSize(BATCH).baseUpdater(new Sgd(0.01)).build()));
    MultiLayerNetwork clipped = build.apply(new Sgd(0.01));
    PerExampleClipper clipper = PerExampleClipper.of(clipped);
    INDArray sum = Nd4j.create(DataType.FLOAT, 1, clipped.numParams());
    return new InterleavedTimer(10, 2, threads -> { }, () -> { })
        .add(model.name() + ".fit", "", 1, () -> plain.fit(x, y))
        .add(model.name() + ".dp", model.name() + ".fit", 1, () -> step.apply(x, y))
        .add(model.name() + ".clip", model.name() + ".fit", 1, () -> clipper.clippedSum(x, y, 1.0, sum))
        .run(rounds);
  }

  private static long outChannels(Layer layer) {
    if (layer instanceof PReLULayer prelu) {
      return prelu.getInputShape()[0];
    }
    return ((org.deeplearning4j.nn.conf.layers.FeedForwardLayer) layer).getNOut();
  }

  static void print(List<Measurement> rows) {
    Map<String, Measurement> byName = new LinkedHashMap<>();
    rows.forEach(r -> byName.put(r.name(), r));
    System.out.printf("%nfloat32, batch %d, 1 thread; ms per step%n", BATCH);
    System.out.printf("%-26s %9s %9s %9s   %8s %8s%n", "case", "min", "p10", "median", "p10 x", "median x");
    for (Measurement r : rows) {
      System.out.printf("%-26s %9.3f %9.3f %9.3f", r.name(), r.min(), r.p10(), r.median());
      if (!r.baseline().isEmpty()) {
        Measurement b = byName.get(r.baseline());
        System.out.printf("   %8.2f %8.2f", r.p10() / b.p10(), r.median() / b.median());
      }
      System.out.println();
    }
  }
}
