package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.dropout.IDropout;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A deterministic "dropout" for tests: drops every third unit and scales the others by 1.5, the same mask for
 * every example, so the batched path and the one-example-at-a-time reference see the same network.
 */
final class FixedMaskDropout implements IDropout {
  private static INDArray mask(INDArray like) {
    long width = like.size(1);
    INDArray mask = Nd4j.create(like.dataType(), 1, width);
    for (long j = 0; j < width; j++) {
      mask.putScalar(0, j, j % 3 == 1 ? 0.0 : 1.5);
    }
    return mask;
  }

  @Override
  public INDArray applyDropout(INDArray input, INDArray result, int iteration, int epoch, LayerWorkspaceMgr mgr) {
    return result.assign(input.mulRowVector(mask(input)));
  }

  @Override
  public INDArray backprop(INDArray gradAtOutput, INDArray gradAtInput, int iteration, int epoch) {
    return gradAtInput.assign(gradAtOutput.mulRowVector(mask(gradAtOutput)));
  }

  @Override
  public void clear() {
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedMaskDropout;
  }

  @Override
  public int hashCode() {
    return FixedMaskDropout.class.hashCode();
  }

  @Override
  public IDropout clone() {
    return new FixedMaskDropout();
  }
}
