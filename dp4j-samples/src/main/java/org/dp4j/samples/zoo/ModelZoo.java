package org.dp4j.samples.zoo;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.Arrays;
import java.util.function.LongFunction;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.mbcd.OutputLoss;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The networks the samples and the {@code dp4j} command line train, in one place: each has a name ({@link Entry}),
 * a factory here with its parameters, and its default size. Every factory returns an ordinary, non-private
 * configuration with the updater it is given (make it private with {@code DpSgdSetup.privateNetwork}); the lifted
 * networks of DP-MBCD come initialised, as {@code DpMbcdTrainer.builder} takes them. All use 32-bit floats.
 *
 * <pre>{@code
 * // given: DpSgdSetup setup
 * PrivateMultiLayerNetwork net = setup.privateNetwork(ModelZoo.mnistCnn(new Nesterovs(0.5, 0.9), 42));
 * Model byName = ModelZoo.Entry.byName("mnist-lstm").network(42);   // default size, Sgd(0.1), initialised
 * }</pre>
 */
public final class ModelZoo {
  /** MNIST and Fashion-MNIST: 28×28 grey images, 10 classes. */
  public static final int SIDE = 28;
  public static final int PIXELS = SIDE * SIDE;
  public static final int CLASSES = 10;

  private ModelZoo() {}

  /**
   * 784-h1-…-10: dense hidden layers with {@code activation} (ReLU weights initialised for ReLU, otherwise Xavier),
   * then a softmax cross-entropy output. {@code dp4j train --model mlp} (default 256, tanh) and {@code dp4j audit}
   * (default 128, ReLU).
   */
  public static MultiLayerConfiguration mnistMlp(IUpdater updater, long seed, int[] hidden, Activation activation) {
    checkWidths(hidden);
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(activation == Activation.RELU ? WeightInit.RELU : WeightInit.XAVIER).list();
    int in = PIXELS;
    for (int h : hidden) {
      list.layer(new DenseLayer.Builder().nIn(in).nOut(h).activation(activation).build());
      in = h;
    }
    return list.layer(softmaxOutput().nIn(in).weightInit(WeightInit.XAVIER).build()).build();
  }

  /**
   * {@link #mnistMlp} on images downscaled by a fixed k×k average pooling (no parameters, independent of the data,
   * so it costs no privacy): 28×28 → (28/k)×(28/k) → hidden layers → 10. With k = 2 the first layer has a quarter
   * of the weights, so the same DP noise per coordinate is a quarter of the noise energy.
   */
  public static MultiLayerConfiguration mnistPooledMlp(IUpdater updater, long seed, int pool, int[] hidden,
      Activation activation) {
    checkArgument(pool >= 1 && pool <= SIDE, "pool must be in [1, %s], was %s", SIDE, pool);
    checkWidths(hidden);
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(activation == Activation.RELU ? WeightInit.RELU : WeightInit.XAVIER).list()
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG).kernelSize(pool, pool)
            .stride(pool, pool).build());
    for (int h : hidden) {
      list.layer(new DenseLayer.Builder().nOut(h).activation(activation).build());
    }
    return list.layer(softmaxOutput().weightInit(WeightInit.XAVIER).build())
        .setInputType(InputType.convolutionalFlat(SIDE, SIDE, 1))
        .build();
  }

  /**
   * The small tanh CNN of Papernot et al. 2021 and Tramèr &amp; Boneh 2021 as dp4j trains it
   * ({@code dp4j train --model cnn}): conv 8×8×16 stride 2 (same) – max-pool 2 stride 1 – conv 4×4×32 stride 2
   * (same) – max-pool 2 stride 1 – dense 32 – dense 10; 46,490 parameters. (The papers' second convolution is
   * "valid", 26,010 parameters; dp4j's accuracy figures are for this one.)
   */
  public static MultiLayerConfiguration mnistCnn(IUpdater updater, long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(tanhConvolution(8, 2, 16))
        .layer(maxPool())
        .layer(tanhConvolution(4, 2, 32))
        .layer(maxPool())
        .layer(new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build())
        .layer(softmaxOutput().build())
        .setInputType(InputType.convolutionalFlat(SIDE, SIDE, 1))
        .build();
  }

  /**
   * {@link #mnistCnn} as a {@code ComputationGraph} with a residual skip connection after the second pooling layer:
   * pool2 → conv 3×3×32 (same, tanh) and pool2 itself, merged by an element-wise add, then dense 32 and the softmax
   * output; 55,738 parameters. Input "in" (flattened 28×28×1), output "out".
   */
  public static ComputationGraphConfiguration mnistCnnGraph(IUpdater updater, long seed) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).graphBuilder()
        .addInputs("in")
        .setInputTypes(InputType.convolutionalFlat(SIDE, SIDE, 1))
        .addLayer("conv1", tanhConvolution(8, 2, 16), "in")
        .addLayer("pool1", maxPool(), "conv1")
        .addLayer("conv2", tanhConvolution(4, 2, 32), "pool1")
        .addLayer("pool2", maxPool(), "conv2")
        .addLayer("branch", tanhConvolution(3, 1, 32), "pool2")
        .addVertex("skip", new ElementWiseVertex(ElementWiseVertex.Op.Add), "pool2", "branch")
        .addLayer("dense", new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build(), "skip")
        .addLayer("out", softmaxOutput().build(), "dense")
        .setOutputs("out")
        .build();
  }

  /**
   * Row-sequential MNIST ({@code dp4j train --model lstm}): an image read as the sequence of its 28 rows (28 steps
   * of 28 pixels, DL4J's NWC layout [n, T, pixels]) by LastTimeStep(LSTM 28→{@code units}, tanh) into a softmax
   * output — the usual recurrent DP-SGD baseline (Opacus' DPLSTM examples). Reshape the images with {@code
   * MnistLstm.sequences}.
   */
  public static MultiLayerConfiguration mnistLstm(IUpdater updater, long seed, int units) {
    checkArgument(units > 0, "LSTM units must be > 0, was %s", units);
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new LastTimeStep(new LSTM.Builder().nIn(SIDE).nOut(units).activation(Activation.TANH)
            .dataFormat(RNNFormat.NWC).build()))
        .layer(softmaxOutput().nIn(units).build())
        .setInputType(InputType.recurrent(SIDE, SIDE, RNNFormat.NWC))
        .build();
  }

  /**
   * Tramèr &amp; Boneh 2021 (Sec. 3): softmax regression on ScatterNet features (K·m² values, channel-major);
   * weights start at zero, as a convex model may.
   */
  public static MultiLayerConfiguration scatterNetLinear(IUpdater updater, long seed, int features) {
    checkArgument(features > 0, "features must be > 0, was %s", features);
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.ZERO).list()
        .layer(softmaxOutput().nIn(features).build())
        .build();
  }

  /**
   * Tramèr &amp; Boneh 2021 (App. B): their tanh CNN on ScatterNet features, K channels of side×side: conv
   * 3×3×16 stride 2 pad 1 – conv 3×3×32 stride 1 pad 1 – dense 32 – dense 10.
   */
  public static MultiLayerConfiguration scatterNetCnn(IUpdater updater, long seed, int channels, int side) {
    checkArgument(channels > 0 && side > 0, "channels and side must be > 0, were %s and %s", channels, side);
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).convolutionMode(ConvolutionMode.Truncate).list()
        .layer(new ConvolutionLayer.Builder(3, 3).stride(2, 2).padding(1, 1).nOut(16).activation(Activation.TANH)
            .build())
        .layer(new ConvolutionLayer.Builder(3, 3).stride(1, 1).padding(1, 1).nOut(32).activation(Activation.TANH)
            .build())
        .layer(new DenseLayer.Builder().nOut(32).activation(Activation.TANH).build())
        .layer(softmaxOutput().build())
        .setInputType(InputType.convolutionalFlat(side, side, channels))
        .build();
  }

  /**
   * A network DP-MBCD lifts ({@code LiftedMlp}; Chen &amp; Liu 2025), initialised: widths[0]-…-widths[last], dense
   * ReLU layers, then an identity output with squared loss (the paper's MSE) or a softmax cross-entropy output.
   * {@code dp4j train --algorithm dp-mbcd --model mlp} (784-256-256-10) and {@code dp4j experiment madelon}.
   */
  public static MultiLayerNetwork liftedMlp(long seed, OutputLoss loss, int... widths) {
    checkArgument(widths.length >= 2, "widths must give the input and the output, was %s", Arrays.toString(widths));
    checkWidths(widths);
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
        .weightInit(WeightInit.RELU).list();
    for (int d = 0; d + 2 < widths.length; d++) {
      list.layer(new DenseLayer.Builder().nIn(widths[d]).nOut(widths[d + 1]).activation(Activation.RELU).build());
    }
    int last = widths.length - 1;
    list.layer(liftedOutput(loss).nIn(widths[last - 1]).nOut(widths[last]).build());
    return initialised(list.build());
  }

  /**
   * A small LeNet-style CNN for the lifted trainer ({@code LiftedCnn}), initialised: conv 5×5 stride 2 with
   * {@code channels} ReLU channels (28×28 → 12×12), average pooling 2×2 (→ 6×6, folded into the next block), dense
   * ReLU layers ({@code hidden}), then the output of {@link #liftedMlp}. Its hidden auxiliaries take
   * 2·(144·channels + Σ hidden) floats per example. {@code dp4j train --algorithm dp-mbcd --model cnn} (6 channels,
   * dense 64).
   */
  public static MultiLayerNetwork liftedCnn(long seed, OutputLoss loss, int channels, int... hidden) {
    checkArgument(channels > 0, "channels must be > 0, was %s", channels);
    checkWidths(hidden);
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
        .weightInit(WeightInit.RELU).list()
        .layer(new ConvolutionLayer.Builder(5, 5).stride(2, 2).nOut(channels).convolutionMode(ConvolutionMode.Truncate)
            .activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG).kernelSize(2, 2).stride(2, 2).build());
    for (int w : hidden) {
      list.layer(new DenseLayer.Builder().nOut(w).activation(Activation.RELU).build());
    }
    return initialised(list.layer(liftedOutput(loss).nOut(CLASSES).build())
        .setInputType(InputType.convolutionalFlat(SIDE, SIDE, 1))
        .build());
  }

  /** The zoo's networks by name, each at the default size the command line uses. */
  public enum Entry {
    /** {@link #mnistMlp} 784-256-10 tanh ({@code dp4j train --model mlp}). */
    MNIST_MLP("mnist-mlp", seed -> mnistMlp(sgd(), seed, new int[] {256}, Activation.TANH)),
    /** {@link #mnistPooledMlp}: 2×2 average pooling, then 196-256-10 tanh (the PrivateFitExample default). */
    MNIST_POOLED_MLP("mnist-pooled-mlp", seed -> mnistPooledMlp(sgd(), seed, 2, new int[] {256}, Activation.TANH)),
    /** {@link #mnistMlp} 784-128-10 ReLU ({@code dp4j audit --model mlp}). */
    AUDIT_MLP("audit-mlp", seed -> mnistMlp(sgd(), seed, new int[] {128}, Activation.RELU)),
    /** {@link #mnistCnn} ({@code dp4j train --model cnn}). */
    MNIST_CNN("mnist-cnn", seed -> mnistCnn(sgd(), seed)),
    /** {@link #mnistCnnGraph}, a {@code ComputationGraph}. */
    MNIST_CNN_GRAPH("mnist-cnn-graph", seed -> mnistCnnGraph(sgd(), seed)),
    /** {@link #mnistLstm} with 64 units ({@code dp4j train --model lstm}). */
    MNIST_LSTM("mnist-lstm", seed -> mnistLstm(sgd(), seed, 64)),
    /** {@link #scatterNetLinear} on MNIST's ScatterNet features: 81 channels of 7×7. */
    SCATTERNET_LINEAR("scatternet-linear", seed -> scatterNetLinear(sgd(), seed, 81 * 7 * 7)),
    /** {@link #scatterNetCnn} on 81 channels of 7×7. */
    SCATTERNET_CNN("scatternet-cnn", seed -> scatterNetCnn(sgd(), seed, 81, 7)),
    /** {@link #liftedMlp} 784-256-256-10, squared loss ({@code dp4j train --algorithm dp-mbcd}). */
    LIFTED_MLP("lifted-mlp", seed -> liftedMlp(seed, OutputLoss.SQUARED, PIXELS, 256, 256, CLASSES)),
    /** {@link #liftedCnn} with 6 channels and dense 64, squared loss. */
    LIFTED_CNN("lifted-cnn", seed -> liftedCnn(seed, OutputLoss.SQUARED, 6, 64));

    private final String id;
    private final LongFunction<Object> factory;

    Entry(String id, LongFunction<Object> factory) {
      this.id = id;
      this.factory = factory;
    }

    /** The entry's name, e.g. "mnist-cnn". */
    public String id() {
      return id;
    }

    /** The entry named {@code name} (as {@link #id()}, case-insensitive). */
    public static Entry byName(String name) {
      checkNotNull(name, "name");
      for (Entry e : values()) {
        if (e.id.equalsIgnoreCase(name)) {
          return e;
        }
      }
      throw new org.dp4j.InvalidSettingException("no model named '" + name + "' in the zoo; known: "
          + Arrays.stream(values()).map(Entry::id).toList());
    }

    /**
     * The network at its default size, initialised and not private ({@code Sgd(0.1)} where the factory takes an
     * updater): a {@code MultiLayerNetwork}, or a {@code ComputationGraph} for {@link #MNIST_CNN_GRAPH}.
     */
    public Model network(long seed) {
      Object built = factory.apply(seed);
      if (built instanceof MultiLayerConfiguration conf) {
        return initialised(conf);
      }
      if (built instanceof ComputationGraphConfiguration conf) {
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
      }
      return (Model) built;
    }
  }

  private static IUpdater sgd() {
    return new Sgd(0.1);
  }

  private static MultiLayerNetwork initialised(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  private static void checkWidths(int[] widths) {
    for (int w : widths) {
      checkArgument(w > 0, "layer widths must be > 0, were %s", Arrays.toString(widths));
    }
  }

  private static OutputLayer.Builder softmaxOutput() {
    return new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(CLASSES).activation(Activation.SOFTMAX);
  }

  private static OutputLayer.Builder liftedOutput(OutputLoss loss) {
    boolean softmax = checkNotNull(loss, "loss") == OutputLoss.SOFTMAX_CROSS_ENTROPY;
    return new OutputLayer.Builder(softmax ? LossFunctions.LossFunction.MCXENT : LossFunctions.LossFunction.MSE)
        .activation(softmax ? Activation.SOFTMAX : Activation.IDENTITY).weightInit(WeightInit.XAVIER);
  }

  private static ConvolutionLayer tanhConvolution(int kernel, int stride, int channels) {
    return new ConvolutionLayer.Builder(kernel, kernel).stride(stride, stride).nOut(channels)
        .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build();
  }

  private static SubsamplingLayer maxPool() {
    return new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build();
  }
}
