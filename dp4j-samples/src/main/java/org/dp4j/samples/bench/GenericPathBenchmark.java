package org.dp4j.samples.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.LayerRuleRegistry;
import org.dp4j.clipping.PerExampleClipper;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Per-step cost of the generic exact path (DL4J's backprop one example at a time) against dp4j's vectorised rules
 * and DL4J's own non-private {@code fit}, for a dense MLP (784-128-10) and a small CNN on MNIST-shaped input, in
 * one process with the cases interleaved (run with {@code OMP_NUM_THREADS=1}):
 * {@code java -cp dp4j.jar org.dp4j.samples.bench.GenericPathBenchmark [batch] [rounds]}.
 */
public final class GenericPathBenchmark {
  private GenericPathBenchmark() {
  }

  public static void main(String[] args) {
    int batch = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Nd4j.getRandom().setSeed(1);
    INDArray x = Nd4j.rand(DataType.FLOAT, batch, 784);
    INDArray y = PerformanceBenchmark.oneHot(batch);
    report("dense 784-128-10", mlp(), x, y, rounds, DenseLayer.class, OutputLayer.class);
    report("cnn conv5x5x8-pool-dense", cnn(), x, y, rounds, ConvolutionLayer.class);
  }

  @SafeVarargs
  private static void report(String name, MultiLayerNetwork net, INDArray x, INDArray y, int rounds,
      Class<? extends org.deeplearning4j.nn.conf.layers.Layer>... forced) {
    PerExampleClipper vectorised = PerExampleClipper.of(net);
    for (Class<? extends org.deeplearning4j.nn.conf.layers.Layer> c : forced) {
      LayerRuleRegistry.register(c, LayerRuleRegistry.generic());
    }
    PerExampleClipper generic = PerExampleClipper.of(net);
    if (generic.isFused()) {
      throw new IllegalStateException("the generic case must not run the fused dense path");
    }
    for (Class<? extends org.deeplearning4j.nn.conf.layers.Layer> c : forced) {
      LayerRuleRegistry.unregister(c);
    }
    Map<String, Runnable> cases = new LinkedHashMap<>();
    cases.put("DL4J fit (non-private)", () -> net.fit(x, y));
    cases.put("vectorised clipped sum" + (vectorised.isFused() ? " (fused)" : ""),
        () -> vectorised.clippedSum(x, y, 1.0));
    cases.put("generic clipped sum", () -> generic.clippedSum(x, y, 1.0));
    Map<String, double[]> times = new LinkedHashMap<>();
    cases.keySet().forEach(k -> times.put(k, new double[rounds]));
    for (int round = -3; round < rounds; round++) {
      for (Map.Entry<String, Runnable> c : cases.entrySet()) {
        long start = System.nanoTime();
        c.getValue().run();
        double ms = (System.nanoTime() - start) / 1e6;
        if (round >= 0) {
          times.get(c.getKey())[round] = ms;
        }
      }
    }
    double fit = median(times.get("DL4J fit (non-private)"));
    System.out.printf("%s, batch %d, median of %d interleaved rounds, OMP_NUM_THREADS=%s%n", name, x.size(0), rounds,
        System.getenv("OMP_NUM_THREADS"));
    double vec = 0;
    for (Map.Entry<String, double[]> t : times.entrySet()) {
      double m = median(t.getValue());
      if (t.getKey().startsWith("vectorised")) {
        vec = m;
      }
      System.out.printf("  %-36s %9.2f ms  %6.1fx fit%s%n", t.getKey(), m, m / fit,
          t.getKey().startsWith("generic") ? String.format("  %6.1fx vectorised", m / vec) : "");
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static NeuralNetConfiguration.ListBuilder base() {
    return new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT).updater(new Sgd(0.01))
        .weightInit(WeightInit.XAVIER).list();
  }

  private static MultiLayerNetwork mlp() {
    return init(base()
        .layer(new DenseLayer.Builder().nOut(128).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784)).build());
  }

  private static MultiLayerNetwork cnn() {
    return init(base()
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(8).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(32).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)).build());
  }

  private static MultiLayerNetwork init(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }
}
