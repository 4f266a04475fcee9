package org.dp4j.samples.bench;

import java.util.List;
import java.util.function.Supplier;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SelfAttentionLayer;
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
 * Per-step cost of the clipped sum ({@code PerExampleClipper}: forward, per-example backward, norms, Σ clip(g_i)) for
 * a {@code SelfAttentionLayer} (nIn 32, nOut 64, 4 heads, projectInput, 32 steps) under global average pooling and a
 * softmax output: the vectorised rule against the generic path (DL4J's backprop one example at a time, forced
 * through the registry) and DL4J's non-private {@code fit}; float32, batch 64, one thread, interleaved in one
 * process.
 *
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.SelfAttentionBenchmark [rounds]
 * </pre>
 */
public final class SelfAttentionBenchmark {
  private static final int BATCH = 64;
  private static final int STEPS = 32;

  private SelfAttentionBenchmark() {
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Nd4j.getEnvironment().setMaxThreads(1);
    Nd4j.getEnvironment().setMaxMasterThreads(1);
    Nd4j.factory().blas().setMaxThreads(1);
    Supplier<MultiLayerNetwork> build = () -> {
      MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1)
          .dataType(DataType.FLOAT).updater(new Sgd(0.01)).weightInit(WeightInit.XAVIER).list()
          .layer(new SelfAttentionLayer.Builder().nIn(32).nOut(64).nHeads(4).projectInput(true).build())
          .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(64).nOut(10).activation(Activation.SOFTMAX)
              .build()).build());
      net.init();
      return net;
    };
    Nd4j.getRandom().setSeed(1);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 32, STEPS);
    INDArray y = Nd4j.zeros(DataType.FLOAT, BATCH, 10);
    for (int i = 0; i < BATCH; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    MultiLayerNetwork plain = build.get();
    MultiLayerNetwork vectorisedNet = build.get();
    PerExampleClipper vectorised = PerExampleClipper.of(vectorisedNet);
    MultiLayerNetwork genericNet = build.get();
    LayerRuleRegistry.register(SelfAttentionLayer.class, LayerRuleRegistry.generic());
    PerExampleClipper generic;
    try {
      generic = PerExampleClipper.of(genericNet);
    } finally {
      LayerRuleRegistry.unregister(SelfAttentionLayer.class);
    }
    INDArray sum = Nd4j.create(DataType.FLOAT, 1, plain.numParams());
    List<Measurement> rows = new InterleavedTimer(10, 2, threads -> { }, () -> { })
        .add("attention.fit", "", 1, () -> plain.fit(x, y))
        .add("attention.clip", "attention.fit", 1, () -> vectorised.clippedSum(x, y, 1.0, sum))
        .add("attention.clip-generic", "attention.clip", 1, () -> generic.clippedSum(x, y, 1.0, sum))
        .run(rounds);
    LayerRulesBenchmark.print(rows);
  }
}
