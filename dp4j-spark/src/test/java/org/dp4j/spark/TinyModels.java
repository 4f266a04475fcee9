package org.dp4j.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.JavaRDD;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.updater.DpSgd;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** Tiny double-precision networks and synthetic records for the Spark tests. */
final class TinyModels {
  static final int FEATURES = 5;
  static final int CLASSES = 3;

  private TinyModels() {
  }

  static DpSgd dp(double clip, double noiseMultiplier, double expectedBatch, IUpdater base) {
    return DpSgd.builder().clipNorm(clip).noiseMultiplier(noiseMultiplier).expectedBatchSize(expectedBatch)
        .baseUpdater(base).build();
  }

  /** 5 → 4 (tanh) → 3 softmax. */
  static MultiLayerNetwork mlp(DpSgd dp) {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(3)
        .dataType(DataType.DOUBLE).updater(dp).weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(FEATURES).nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(CLASSES).activation(Activation.SOFTMAX)
            .build())
        .build());
    net.init();
    return net;
  }

  /** The same architecture as a graph. */
  static ComputationGraph graph(DpSgd dp) {
    ComputationGraph graph = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(4)
        .dataType(DataType.DOUBLE).updater(dp).weightInit(WeightInit.XAVIER).graphBuilder().addInputs("in")
        .addLayer("hidden", new DenseLayer.Builder().nIn(FEATURES).nOut(4).activation(Activation.TANH).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(CLASSES)
            .activation(Activation.SOFTMAX).build(), "hidden")
        .setOutputs("out").build());
    graph.init();
    return graph;
  }

  /**
   * A counting network: one input, one identity output with MSE. On records with feature 0 and label −1000 every
   * example's gradient is (0, 2(b + 1000)) — on the bias only, of norm far above C — so its clipped gradient is
   * exactly C on the bias, and the bias entry of a clipped sum is C times the number of records in it.
   */
  static MultiLayerNetwork counter(DpSgd dp) {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(5)
        .dataType(DataType.DOUBLE).updater(dp).list()
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(1).nOut(1).activation(Activation.IDENTITY).build())
        .build());
    net.init();
    return net;
  }

  static List<LabelledRecord> counterRecords(int n) {
    List<LabelledRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(new LabelledRecord(new float[] {0f}, new float[] {-1000f}));
    }
    return records;
  }

  /** n records with Gaussian features and one-hot labels. */
  static List<LabelledRecord> records(long seed, int n) {
    Random random = new Random(seed);
    List<LabelledRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float[] x = new float[FEATURES];
      for (int j = 0; j < FEATURES; j++) {
        x[j] = (float) random.nextGaussian();
      }
      float[] y = new float[CLASSES];
      y[random.nextInt(CLASSES)] = 1f;
      records.add(new LabelledRecord(x, y));
    }
    return records;
  }

  static JavaRDD<LabelledRecord> rdd(List<LabelledRecord> records, int partitions) {
    return DriverRecords.distribute(SharedSpark.context(), records, partitions);
  }

  static INDArray features(List<LabelledRecord> records) {
    float[][] x = new float[records.size()][];
    for (int i = 0; i < x.length; i++) {
      x[i] = records.get(i).features();
    }
    return Nd4j.create(x).castTo(DataType.DOUBLE);
  }

  static INDArray labels(List<LabelledRecord> records) {
    float[][] y = new float[records.size()][];
    for (int i = 0; i < y.length; i++) {
      y[i] = records.get(i).labels();
    }
    return Nd4j.create(y).castTo(DataType.DOUBLE);
  }
}
