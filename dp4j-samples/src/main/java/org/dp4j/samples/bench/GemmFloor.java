package org.dp4j.samples.bench;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The matrix products of one DP-SGD step of a network, alone, on preallocated arrays: the floor that dp4j's step
 * cannot go below without doing less arithmetic. Per dense layer (n examples): the forward product a·W, the input
 * error δ·Wᵀ (all but the first layer) and the clipped sum aᵀ(c ⊙ δ). Per convolution (P output positions,
 * K = C·kH·kW): the forward product of the patch matrix [n·P, K] with the weights, the input error [n·P, out]·[out, K]
 * (all but the first layer) and the per-example gradients δ_iᵀX_i as one batched product (from which dp4j takes
 * both the norms and the clipped sum). Shapes come from a forward pass of the network; elementwise work, im2col,
 * col2im and pooling are excluded.
 */
final class GemmFloor implements Runnable {
  private final List<Runnable> products = new ArrayList<>();

  /** The products of {@code net} (dense, output and 2-D convolution layers) on a batch shaped like {@code x}. */
  GemmFloor(MultiLayerNetwork net, INDArray x) {
    List<INDArray> activations = net.feedForward(x, false);
    long n = x.size(0);
    boolean first = true;
    for (int i = 0; i < net.getnLayers(); i++) {
      Layer layer = net.getLayer(i);
      org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
      INDArray out = activations.get(i + 1);
      if (conf instanceof ConvolutionLayer) {
        ConvolutionLayer c = (ConvolutionLayer) conf;
        long k = c.getNIn() * c.getKernelSize()[0] * c.getKernelSize()[1];
        long positions = out.size(2) * out.size(3);
        addProducts(n * positions, k, out.size(1), first);
        INDArray delta = random(n, positions, out.size(1));
        INDArray patches = random(n, positions, k);
        INDArray perExample = random(n, out.size(1), k);
        products.add(() -> Nd4j.matmul(delta, patches, perExample, true, false, false));
        first = false;
      } else if (conf instanceof FeedForwardLayer && layer.numParams() > 0) {
        FeedForwardLayer d = (FeedForwardLayer) conf;
        addProducts(n, d.getNIn(), d.getNOut(), first);
        INDArray a = random(n, d.getNIn());
        INDArray delta = random(n, d.getNOut());
        INDArray sum = random(d.getNIn(), d.getNOut());
        products.add(() -> Nd4j.gemm(a, delta, sum, true, false, 1.0, 0.0));
        first = false;
      }
    }
  }

  /** Forward [rows, k]·[k, out] and, unless first, the input error [rows, out]·[out, k]. */
  private void addProducts(long rows, long k, long out, boolean first) {
    INDArray input = random(rows, k);
    INDArray weights = random(k, out);
    INDArray output = random(rows, out);
    products.add(() -> Nd4j.gemm(input, weights, output, false, false, 1.0, 0.0));
    if (!first) {
      INDArray inputError = random(rows, k);
      products.add(() -> Nd4j.gemm(output, weights, inputError, false, true, 1.0, 0.0));
    }
  }

  private static INDArray random(long... shape) {
    return Nd4j.rand(DataType.FLOAT, shape);
  }

  @Override
  public void run() {
    products.forEach(Runnable::run);
  }
}
