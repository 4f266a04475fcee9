package org.dp4j.clipping.custom;

import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.deeplearning4j.nn.conf.layers.samediff.SameDiffLayer;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;

/** A user's own DL4J layer (a SameDiff layer, as DL4J documents custom layers): y = x ⊙ w, one weight per feature. */
public class FeatureScaleLayer extends SameDiffLayer {
  private int size;

  public FeatureScaleLayer() {
    // for DL4J's JSON configuration
  }

  public FeatureScaleLayer(int size) {
    this.size = size;
  }

  public int getSize() {
    return size;
  }

  public void setSize(int size) {
    this.size = size;
  }

  @Override
  public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
    return input.mul(params.get("W"));
  }

  @Override
  public void defineParameters(SDLayerParams params) {
    params.addWeightParam("W", 1, size);
  }

  @Override
  public void initializeParameters(Map<String, INDArray> params) {
    INDArray w = params.get("W");
    for (int j = 0; j < size; j++) {
      w.putScalar(0, j, 0.5 + 0.25 * j);
    }
  }

  @Override
  public InputType getOutputType(int layerIndex, InputType inputType) {
    return inputType;
  }
}
