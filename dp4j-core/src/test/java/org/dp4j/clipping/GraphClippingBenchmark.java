package org.dp4j.clipping;

import static org.dp4j.bench.StepTimings.print;
import static org.dp4j.bench.StepTimings.printRatio;
import static org.dp4j.bench.StepTimings.time;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration.GraphBuilder;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.bench.StepTimings;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * {@link GraphPerExampleClipper#addClippedSum} against DL4J's own non-private {@code graph.fit(DataSet)} on the same
 * batch, float32: a dense graph with a skip connection (784 → 256 → 256, the two added, → 10; batch 256) and a small
 * CNN graph with two merged convolution branches (batch 128). The clipped sum is the per-example part of a DP-SGD
 * step (noise and the update come on top; the MLN rows of {@code DpSgdStepBenchmark} show their cost). Not a test;
 * run with
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-core/target/test-classes:dp4j-core/target/classes:$CP \
 *     org.dp4j.clipping.GraphClippingBenchmark [rounds]
 * </pre>
 */
public final class GraphClippingBenchmark {
  private GraphClippingBenchmark() {
  }

  private static GraphBuilder builder() {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(new Sgd(0.01))
        .weightInit(WeightInit.XAVIER).graphBuilder();
  }

  private static ComputationGraph init(GraphBuilder builder) {
    ComputationGraph graph = new ComputationGraph(builder.build());
    graph.init();
    return graph;
  }

  static ComputationGraph denseSkip() {
    return init(builder().addInputs("in").setInputTypes(InputType.feedForward(784))
        .addLayer("d1", new DenseLayer.Builder().nOut(256).activation(Activation.RELU).build(), "in")
        .addLayer("d2", new DenseLayer.Builder().nOut(256).activation(Activation.RELU).build(), "d1")
        .addVertex("skip", new ElementWiseVertex(ElementWiseVertex.Op.Add), "d1", "d2")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
            .build(), "skip")
        .setOutputs("out"));
  }

  static ComputationGraph cnn() {
    return init(builder().addInputs("in").setInputTypes(InputType.convolutionalFlat(28, 28, 1))
        .addLayer("c1", new ConvolutionLayer.Builder(5, 5).nOut(16).stride(2, 2).activation(Activation.RELU)
            .build(), "in")
        .addLayer("pool", new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build(), "c1")
        .addLayer("c2a", new ConvolutionLayer.Builder(3, 3).nOut(16).stride(2, 2).activation(Activation.RELU)
            .build(), "pool")
        .addLayer("c2b", new ConvolutionLayer.Builder(3, 3).nOut(16).stride(2, 2).activation(Activation.TANH)
            .build(), "pool")
        .addVertex("merge", new MergeVertex(), "c2a", "c2b")
        .addLayer("dense", new DenseLayer.Builder().nOut(64).activation(Activation.RELU).build(), "merge")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
            .build(), "dense")
        .setOutputs("out"));
  }

  private static INDArray oneHot(int batch) {
    INDArray y = Nd4j.zeros(DataType.FLOAT, batch, 10);
    for (int i = 0; i < batch; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    return y;
  }

  private static void compare(String title, ComputationGraph plain, ComputationGraph clipped, int batch,
      int rounds) {
    INDArray x = Nd4j.rand(DataType.FLOAT, batch, 784);
    INDArray y = oneHot(batch);
    DataSet data = new DataSet(x, y);
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(clipped, ClippingMode.FLAT);
    INDArray target = Nd4j.zeros(DataType.FLOAT, 1, clipped.numParams());
    INDArray[] features = {x};
    INDArray[] labels = {y};
    double[][] ms = time(rounds, () -> plain.fit(data),
        () -> clipper.addClippedSum(features, labels, null, null, 1.0, target.assign(0.0)));
    System.out.printf("%s, batch %d, %d parameters%n", title, batch, plain.numParams());
    print("DL4J graph.fit (non-private)", ms[0]);
    print("addClippedSum", ms[1]);
    printRatio("ratio addClippedSum / fit", ms[1], ms[0]);
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    System.out.printf("float32, OMP_NUM_THREADS=%s, %d steps each; ms/step as min / p10 / median%n",
        System.getenv("OMP_NUM_THREADS"), StepTimings.stepsPer(rounds));
    Nd4j.getRandom().setSeed(3);
    compare("dense skip graph 784-256-256(+256)-10", denseSkip(), denseSkip(), 256, rounds);
    compare("CNN graph conv5x5/2(16)-maxpool-[conv3x3/2(16) | conv3x3/2(16)]-merge-dense64-10 on 28x28",
        cnn(), cnn(), 128, Math.max(1, rounds / 3));
  }
}
