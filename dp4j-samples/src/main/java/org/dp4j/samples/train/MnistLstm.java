package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.training.IndexedData;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * Row-sequential MNIST: an image is read as a sequence of its 28 rows (28 time steps of 28 pixels), by an LSTM whose
 * output at the last step feeds a softmax layer — the usual recurrent baseline for DP-SGD (Opacus' DPLSTM examples
 * train LSTMs the same way). The layout is DL4J's NWC [n, T, pixels], a plain reshape of the flat images.
 *
 * <pre>{@code
 * // given: LabelledImages images
 * MultiLayerConfiguration conf = MnistLstm.configuration(new Nesterovs(1.0, 0.9), 42, 64);
 * IndexedData train = MnistLstm.sequences(IndexedData.of(images, DataType.FLOAT));
 * }</pre>
 */
public final class MnistLstm {
  /** Time steps (image rows) and pixels per step. */
  public static final int STEPS = 28;
  public static final int PIXELS = 28;

  private MnistLstm() {
  }

  /** LastTimeStep(LSTM 28→{@code units}, tanh) → softmax output over 10 classes. */
  public static MultiLayerConfiguration configuration(IUpdater updater, long seed, int units) {
    return new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new LastTimeStep(new LSTM.Builder().nIn(PIXELS).nOut(units).activation(Activation.TANH)
            .dataFormat(RNNFormat.NWC).build()))
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(units).nOut(10)
            .activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(PIXELS, STEPS, RNNFormat.NWC))
        .build();
  }

  /** Flat images [n, 784] as row sequences [n, 28, 28] (NWC). */
  public static DataSet sequences(DataSet flat) {
    return new DataSet(rows(flat.getFeatures()), flat.getLabels());
  }

  /** The training set as row sequences, batch by batch. */
  public static IndexedData sequences(IndexedData flat) {
    return new IndexedData() {
      @Override
      public int size() {
        return flat.size();
      }

      @Override
      public DataSet rows(int[] indices) {
        return sequences(flat.rows(indices));
      }
    };
  }

  private static INDArray rows(INDArray flat) {
    return flat.reshape('c', flat.size(0), STEPS, PIXELS);
  }
}
