package org.dp4j.clipping;

import java.util.LinkedHashMap;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.params.BidirectionalParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/** Views of one layer's slice of a flat gradient vector, keyed as the layer's parameter table. */
final class GradientViews {
  private GradientViews() {
  }

  /**
   * As the layer's param initializer maps them. {@code Bidirectional}'s initializer hands its own configuration to
   * the wrapped layer's initializer, which then fails (DL4J 1.0.0-M2.1), so its two halves are mapped here with the
   * wrapped layer's configuration, as DL4J's {@code BidirectionalLayer.setBackpropGradientsViewArray} splits them.
   */
  static Map<String, INDArray> of(Layer layer, INDArray slice) {
    NeuralNetConfiguration conf = layer.conf();
    if (!(conf.getLayer() instanceof Bidirectional)) {
      return conf.getLayer().initializer().getGradientsFromFlattened(conf, slice);
    }
    org.deeplearning4j.nn.conf.layers.Layer inner = ((Bidirectional) conf.getLayer()).getFwd();
    NeuralNetConfiguration innerConf = conf.clone();
    innerConf.setLayer(inner);
    INDArray flat = slice.reshape(slice.length());
    long half = slice.length() / 2;
    Map<String, INDArray> views = new LinkedHashMap<>();
    inner.initializer().getGradientsFromFlattened(innerConf, flat.get(NDArrayIndex.interval(0, half)))
        .forEach((key, view) -> views.put(BidirectionalParamInitializer.FORWARD_PREFIX + key, view));
    inner.initializer().getGradientsFromFlattened(innerConf, flat.get(NDArrayIndex.interval(half, 2 * half)))
        .forEach((key, view) -> views.put(BidirectionalParamInitializer.BACKWARD_PREFIX + key, view));
    return views;
  }
}
