package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration.GraphBuilder;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex.Op;
import org.deeplearning4j.nn.conf.graph.L2NormalizeVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.graph.ReshapeVertex;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.graph.ShiftVertex;
import org.deeplearning4j.nn.conf.graph.SubsetVertex;
import org.deeplearning4j.nn.conf.graph.rnn.DuplicateToTimeSeriesVertex;
import org.deeplearning4j.nn.conf.graph.rnn.LastTimeStepVertex;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.LocalResponseNormalization;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** Tiny double-precision computation graphs covering every vertex kind the graph clipper supports. */
final class TinyGraphs {
  private TinyGraphs() {
  }

  static GraphBuilder builder() {
    return new NeuralNetConfiguration.Builder().seed(7).dataType(DataType.DOUBLE).updater(new Sgd(0.1))
        .weightInit(WeightInit.XAVIER).graphBuilder();
  }

  static ComputationGraph init(ComputationGraphConfiguration conf) {
    ComputationGraph graph = new ComputationGraph(conf);
    graph.init();
    return graph;
  }

  /**
   * Inputs a [n, 6] and b [n, 4]; two dense branches of a joined by every element-wise op (a skip connection),
   * merged with b, then subset, scale, shift, L2-normalise and reshape before a dense layer and a softmax output;
   * a second (MSE) output reads the second branch directly.
   */
  static ComputationGraph denseSkip() {
    return init(builder().addInputs("a", "b")
        .addLayer("d1", new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build(), "a")
        .addLayer("d2", new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.SOFTPLUS).build(), "a")
        .addVertex("add", new ElementWiseVertex(Op.Add), "d1", "d2")
        .addVertex("sub", new ElementWiseVertex(Op.Subtract), "d1", "d2")
        .addVertex("prod", new ElementWiseVertex(Op.Product), "d1", "d2")
        .addVertex("avg", new ElementWiseVertex(Op.Average), "d1", "d2", "add")
        .addVertex("max", new ElementWiseVertex(Op.Max), "d1", "d2")
        .addVertex("merge", new MergeVertex(), "add", "sub", "prod", "avg", "max", "b")
        .addVertex("subset", new SubsetVertex(2, 27), "merge")
        .addVertex("scale", new ScaleVertex(0.7), "subset")
        .addVertex("shift", new ShiftVertex(0.3), "scale")
        .addVertex("l2", new L2NormalizeVertex(), "shift")
        .addVertex("reshape", new ReshapeVertex(-1, 26), "l2")
        .addLayer("d3", new DenseLayer.Builder().nIn(26).nOut(4).activation(Activation.SIGMOID).build(), "reshape")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build(), "d3")
        .addLayer("out2", new OutputLayer.Builder(LossFunction.MSE).nIn(5).nOut(2)
            .activation(Activation.IDENTITY).build(), "d2")
        .setOutputs("out", "out2").build());
  }

  /** A dense layer, a frozen dense layer that passes errors back (FrozenLayerWithBackprop), a dense output. */
  static ComputationGraph frozenInTheMiddle() {
    return init(builder().addInputs("x")
        .addLayer("d1", new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build(), "x")
        .addLayer("frozen", new FrozenLayerWithBackprop(new DenseLayer.Builder().nIn(5).nOut(4)
            .activation(Activation.SIGMOID).build()), "d1")
        .addVertex("merge", new MergeVertex(), "frozen", "d1")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(9).nOut(3)
            .activation(Activation.SOFTMAX).build(), "merge")
        .setOutputs("out").build());
  }

  /**
   * A time series seq [n, 3, 4] and a vector v [n, 5]: dense(v) duplicated over seq's time steps, added to seq,
   * its last time step merged with dense(v), into a LossLayer.
   */
  static ComputationGraph timeSeriesVertices() {
    return init(builder().addInputs("seq", "v")
        .addLayer("dv", new DenseLayer.Builder().nIn(5).nOut(3).activation(Activation.TANH).build(), "v")
        .addVertex("dup", new DuplicateToTimeSeriesVertex("seq"), "dv")
        .addVertex("sum", new ElementWiseVertex(Op.Add), "seq", "dup")
        .addVertex("last", new LastTimeStepVertex("seq"), "sum")
        .addVertex("merge", new MergeVertex(), "last", "dv")
        .addLayer("d", new DenseLayer.Builder().nIn(6).nOut(3).activation(Activation.IDENTITY).build(), "merge")
        .addLayer("out", new LossLayer.Builder(LossFunction.MCXENT).activation(Activation.SOFTMAX).build(), "d")
        .setOutputs("out").build());
  }

  /**
   * Flat 7×7 images reshaped to NCHW, conv → max pool → two conv branches added, local response normalisation,
   * merged along channels with one branch, global average pooling → dense → softmax output; the other branch
   * flattened by a PreprocessorVertex into an MSE output.
   */
  static ComputationGraph cnn() {
    return init(builder().addInputs("img")
        .addVertex("image", new ReshapeVertex(-1, 1, 7, 7), "img")
        .addLayer("c1", new ConvolutionLayer.Builder(3, 3).nIn(1).nOut(2).activation(Activation.ELU)
            .convolutionMode(ConvolutionMode.Truncate).build(), "image")
        .addLayer("pool", new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(1, 1).build(), "c1")
        .addLayer("c2a", new ConvolutionLayer.Builder(2, 2).nIn(2).nOut(3).activation(Activation.TANH).build(),
            "pool")
        .addLayer("c2b", new ConvolutionLayer.Builder(2, 2).nIn(2).nOut(3).activation(Activation.SIGMOID)
            .build(), "pool")
        .addVertex("add", new ElementWiseVertex(Op.Add), "c2a", "c2b")
        .addLayer("lrn", new LocalResponseNormalization.Builder().build(), "add")
        .addVertex("channels", new MergeVertex(), "lrn", "c2b")
        .addLayer("gap", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), "channels")
        .addLayer("d", new DenseLayer.Builder().nIn(6).nOut(4).activation(Activation.RELU).build(), "gap")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build(), "d")
        .addVertex("flat", new PreprocessorVertex(new CnnToFeedForwardPreProcessor(3, 3, 3)), "c2a")
        .addLayer("out2", new OutputLayer.Builder(LossFunction.MSE).nIn(27).nOut(2)
            .activation(Activation.IDENTITY).build(), "flat")
        .setOutputs("out", "out2").build());
  }
}
