package org.dp4j.clipping;

import java.util.function.Function;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What the per-example rules of the masked sequence layers ({@link SimpleRnnGradients},
 * {@link SelfAttentionGradients}) share: the parameters by key, the input of the last forward pass in batch-major
 * layout [n, T, nIn] and the feature mask it came with, checked against that input.
 */
abstract class MaskedSequenceGradients implements PerExampleLayer {
  final Function<String, INDArray> params;
  final String where;
  final long chunkElements;
  /** The feature mask: as set before the forward pass, then [n, T] as {@link SequenceArrays#mask} returns it. */
  INDArray mask;
  /** [n, T, nIn]. */
  INDArray input;

  MaskedSequenceGradients(Function<String, INDArray> params, String where, long chunkElements) {
    this.params = params;
    this.where = where;
    this.chunkElements = chunkElements;
  }

  @Override
  public final void setInputMask(INDArray mask) {
    this.mask = mask;
  }

  /** Reads a forward input given in {@code format} into {@link #input} and the mask set before into {@link #mask}. */
  final void readInput(INDArray in, RNNFormat format) {
    input = SequenceArrays.batchMajor(in, format, where);
    mask = SequenceArrays.mask(mask, input.dataType(), input.size(0), input.size(1), where);
  }
}
