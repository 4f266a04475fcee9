package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Map;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastMulOp;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's {@code LastTimeStep} wrapper: the wrapped recurrent layer's output at each example's last unmasked step
 * (the last step without a mask), as DL4J's {@code LastTimeStepLayer} picks it. Selection and its backward pass are
 * one broadcast product with a one-hot [n, T] matrix S (S_{i,t} = 1 at example i's last step): out_i = Σ_t h_{i,t}
 * S_{i,t}, and the error at step t is err_i S_{i,t}. The wrapped layer's rule does the rest, with the same mask.
 */
final class LastTimeStepGradients implements PerExampleLayer {
  private final PerExampleLayer inner;
  private final RNNFormat format;
  private final String where;
  private INDArray mask;
  private INDArray selection;   // [n, T]

  LastTimeStepGradients(PerExampleLayer inner, RNNFormat format, String where) {
    this.inner = inner;
    this.format = format;
    this.where = where;
  }

  @Override
  public void setInputMask(INDArray mask) {
    this.mask = mask;
    inner.setInputMask(mask);
  }

  @Override
  public INDArray forward(INDArray in) {
    INDArray seq = inner.forward(in);
    int timeDim = format == RNNFormat.NCW ? 2 : 1;
    long n = seq.size(0);
    long steps = seq.size(timeDim);
    selection = Nd4j.zeros(seq.dataType(), n, steps);
    if (mask == null) {
      selection.getColumn(steps - 1).assign(1.0);
    } else {
      // (t + 1) at unmasked steps, 0 at masked ones: the row maximum marks the last unmasked step.
      INDArray ranks = SequenceArrays.mask(mask, seq.dataType(), n, steps, where).neq(0.0).castTo(seq.dataType())
          .mulRowVector(Nd4j.linspace(seq.dataType(), 1, steps, 1).reshape(1, steps));
      INDArray last = ranks.max(true, 1);
      checkArgument(last.minNumber().doubleValue() > 0, "%s: an example is entirely masked out (no time step "
          + "to take the last of)", where);
      selection.assign(ranks.subColumnVector(last).eq(0.0).castTo(seq.dataType()));
    }
    INDArray picked = Nd4j.createUninitialized(seq.dataType(), seq.shape(), 'c');
    Nd4j.getExecutioner().exec(new BroadcastMulOp(seq.dup('c'), selection, picked, 0, timeDim));
    return picked.sum(timeDim);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    long n = selection.size(0);
    long steps = selection.size(1);
    long width = outputError.size(1);
    INDArray error = format == RNNFormat.NCW ? Nd4j.create(outputError.dataType(), n, width, steps)
        : Nd4j.create(outputError.dataType(), n, steps, width);
    int timeDim = format == RNNFormat.NCW ? 2 : 1;
    int featureDim = 3 - timeDim;
    error.assign(1.0);
    Nd4j.getExecutioner().exec(new BroadcastMulOp(error, outputError, error, 0, featureDim));
    Nd4j.getExecutioner().exec(new BroadcastMulOp(error, selection, error, 0, timeDim));
    return inner.backward(error, needInputError);
  }

  @Override
  public boolean hasParams() {
    return inner.hasParams();
  }

  @Override
  public INDArray squaredNorms() {
    return inner.squaredNorms();
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    inner.writeScaledSum(scale, gradientViews);
  }
}
