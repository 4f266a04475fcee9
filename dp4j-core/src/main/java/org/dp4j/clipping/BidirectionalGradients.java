package org.dp4j.clipping;

import java.util.HashMap;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.AbstractLSTM;
import org.deeplearning4j.nn.conf.layers.GravesLSTM;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.params.BidirectionalParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.TimeSeriesUtils;
import org.dp4j.InvalidSettingException;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * DL4J's {@code Bidirectional} wrapper of an {@code LSTM}, {@code GravesLSTM} or {@code SimpleRnn}, in every merge
 * mode (ADD, MUL, AVERAGE, CONCAT): a forward copy reads the sequence, a backward copy reads it reversed (with the
 * reversed mask, as DL4J does), and the two outputs — the backward one reversed again — are merged. The two copies
 * have separate parameters ("f…" and "b…" in the param table), so example i's gradient is the pair of the copies'
 * per-example gradients and its squared norm the sum of theirs (Schuster &amp; Paliwal 1997).
 */
final class BidirectionalGradients implements PerExampleLayer {
  private final PerExampleLayer forwards;
  private final PerExampleLayer backwards;
  private final Bidirectional.Mode mode;
  private final int featureDim;
  private INDArray outForwards;
  private INDArray outBackwards;    // already reversed to the forward time order

  private BidirectionalGradients(PerExampleLayer forwards, PerExampleLayer backwards, Bidirectional.Mode mode,
      RNNFormat format) {
    this.forwards = forwards;
    this.backwards = backwards;
    this.mode = mode;
    this.featureDim = format == RNNFormat.NCW ? 1 : 2;
  }

  static BidirectionalGradients of(Layer layer, String where, long chunkElements) {
    Bidirectional conf = (Bidirectional) layer.conf().getLayer();
    org.deeplearning4j.nn.conf.layers.Layer inner = conf.getFwd();
    Class<?> type = inner.getClass();
    if (!(type == LSTM.class || type == GravesLSTM.class || type == SimpleRnn.class)) {
      throw new InvalidSettingException(where + ": Bidirectional is supported around LSTM, GravesLSTM and "
          + "SimpleRnn only, was " + type.getSimpleName());
    }
    RecurrentRules.checkInner(inner, where);
    LayerRules.checkBaseLayer((org.deeplearning4j.nn.conf.layers.BaseLayer) inner, where);
    return new BidirectionalGradients(
        copy(inner, layer, BidirectionalParamInitializer.FORWARD_PREFIX, where + " (forward)", chunkElements),
        copy(inner, layer, BidirectionalParamInitializer.BACKWARD_PREFIX, where + " (backward)", chunkElements),
        conf.getMode(), conf.getRNNDataFormat());
  }

  private static PerExampleLayer copy(org.deeplearning4j.nn.conf.layers.Layer inner, Layer layer, String prefix,
      String where, long chunkElements) {
    if (inner instanceof SimpleRnn) {
      return new SimpleRnnGradients((SimpleRnn) inner, key -> layer.getParam(prefix + key), where, chunkElements);
    }
    return new LstmGradients((AbstractLSTM) inner, key -> layer.getParam(prefix + key), where,
        inner instanceof GravesLSTM, chunkElements);
  }

  private INDArray reverse(INDArray series) {
    if (featureDim == 1) {
      return TimeSeriesUtils.reverseTimeSeries(series.dup('c'));
    }
    return TimeSeriesUtils.reverseTimeSeries(series.permute(0, 2, 1).dup('c')).permute(0, 2, 1);
  }

  @Override
  public void setInputMask(INDArray mask) {
    forwards.setInputMask(mask);
    backwards.setInputMask(mask == null ? null
        : TimeSeriesUtils.reverseTimeSeriesMask(mask, LayerWorkspaceMgr.noWorkspaces(), ArrayType.INPUT));
  }

  @Override
  public INDArray forward(INDArray input) {
    outForwards = forwards.forward(input).dup('c');
    outBackwards = reverse(backwards.forward(reverse(input)));
    return switch (mode) {
      case ADD -> outForwards.add(outBackwards);
      case MUL -> outForwards.mul(outBackwards);
      case AVERAGE -> outForwards.add(outBackwards).muli(0.5);
      case CONCAT -> Nd4j.concat(featureDim, outForwards, outBackwards);
    };
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray errorForwards;
    INDArray errorBackwards;
    switch (mode) {
      case ADD -> {
        errorForwards = outputError;
        errorBackwards = outputError;
      }
      case MUL -> {
        errorForwards = outputError.mul(outBackwards);
        errorBackwards = outputError.mul(outForwards);
      }
      case AVERAGE -> {
        errorForwards = outputError.mul(0.5);
        errorBackwards = errorForwards;
      }
      default -> {
        long width = outputError.size(featureDim) / 2;
        INDArray[] halves = new INDArray[2];
        for (int k = 0; k < 2; k++) {
          halves[k] = featureDim == 1
              ? outputError.get(NDArrayIndex.all(), NDArrayIndex.interval(k * width, (k + 1) * width),
                  NDArrayIndex.all())
              : outputError.get(NDArrayIndex.all(), NDArrayIndex.all(),
                  NDArrayIndex.interval(k * width, (k + 1) * width));
        }
        errorForwards = halves[0];
        errorBackwards = halves[1];
      }
    }
    outForwards = null;
    outBackwards = null;
    INDArray inputForwards = forwards.backward(errorForwards, needInputError);
    INDArray inputBackwards = backwards.backward(reverse(errorBackwards), needInputError);
    return needInputError ? inputForwards.add(reverse(inputBackwards)) : null;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    return forwards.squaredNorms().addi(backwards.squaredNorms());
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    forwards.writeScaledSum(scale, withoutPrefix(gradientViews, BidirectionalParamInitializer.FORWARD_PREFIX));
    backwards.writeScaledSum(scale, withoutPrefix(gradientViews, BidirectionalParamInitializer.BACKWARD_PREFIX));
  }

  private static Map<String, INDArray> withoutPrefix(Map<String, INDArray> views, String prefix) {
    Map<String, INDArray> own = new HashMap<>();
    views.forEach((key, view) -> {
      if (key.startsWith(prefix)) {
        own.put(key.substring(prefix.length()), view);
      }
    });
    return own;
  }
}
