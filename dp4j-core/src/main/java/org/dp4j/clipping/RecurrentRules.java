package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.AbstractLSTM;
import org.deeplearning4j.nn.conf.layers.BaseRecurrentLayer;
import org.deeplearning4j.nn.conf.layers.GravesBidirectionalLSTM;
import org.deeplearning4j.nn.conf.layers.GravesLSTM;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.RnnLossLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.layers.recurrent.LastTimeStepLayer;
import org.dp4j.InvalidSettingException;

/**
 * The per-example rules of recurrent layers ({@code LSTM}, {@code GravesLSTM}, {@code SimpleRnn}, the
 * {@code LastTimeStep} wrapper of these, {@code RnnOutputLayer}, {@code RnnLossLayer}) and the refusals of the
 * recurrent layers without one. Always full back-propagation through time: truncated BPTT splits an example's
 * sequence over several updates, which per-example clipping of one update does not bound.
 */
final class RecurrentRules {
  static final String SUPPORTED = "LSTM, GravesLSTM, SimpleRnn (without layer norm), LastTimeStep of these, "
      + "RnnOutputLayer, RnnLossLayer";

  private RecurrentRules() {
  }

  /** Whether the layer is an output layer of the recurrent kind (a loss per time step). */
  static boolean isOutput(Class<?> type) {
    return type == RnnOutputLayer.class || type == RnnLossLayer.class;
  }

  /** The rule of a recurrent layer, or null when the layer is not recurrent (other rules apply). */
  static PerExampleLayer ruleFor(Layer layer, String where, long chunkElements) {
    if (layer instanceof LastTimeStepLayer) {
      Layer underlying = ((LastTimeStepLayer) layer).getUnderlying();
      PerExampleLayer inner = ruleFor(underlying, where + " inside LastTimeStep", chunkElements);
      checkArgument(inner != null && !isOutput(underlying.conf().getLayer().getClass()),
          "%s: LastTimeStep is supported around %s only", where, "LSTM, GravesLSTM, SimpleRnn");
      return new LastTimeStepGradients(inner, format(underlying), where);
    }
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    Class<?> type = conf.getClass();
    if (type == LSTM.class || type == GravesLSTM.class || type == SimpleRnn.class) {
      checkInner(conf, where);
      if (type == SimpleRnn.class) {
        return new SimpleRnnGradients((SimpleRnn) conf, layer::getParam, where, chunkElements);
      }
      return new LstmGradients((AbstractLSTM) conf, layer::getParam, where, type == GravesLSTM.class, chunkElements);
    }
    if (isOutput(type)) {
      checkArgument(conf.getIDropout() == null, "%s: dropout on an output layer's input is not supported; put a "
          + "DropoutLayer before it instead", where);
      return new RnnOutputGradients(layer, where, chunkElements);
    }
    if (type == GravesBidirectionalLSTM.class) {
      throw new InvalidSettingException(where + ": GravesBidirectionalLSTM is not supported by per-example "
          + "clipping (DL4J deprecates it); use Bidirectional(GravesLSTM) or Bidirectional(LSTM)");
    }
    if (type == Bidirectional.class) {
      return BidirectionalGradients.of(layer, where, chunkElements);
    }
    return null;
  }

  /** Refuses what the recurrent rules do not model: input dropout, SimpleRnn's layer normalisation. */
  static void checkInner(org.deeplearning4j.nn.conf.layers.Layer conf, String where) {
    checkArgument(conf.getIDropout() == null, "%s: dropout on a recurrent layer's input is not supported; put a "
        + "DropoutLayer before it instead", where);
    checkArgument(!(conf instanceof SimpleRnn && ((SimpleRnn) conf).hasLayerNorm()), "%s: SimpleRnn with layer "
        + "normalisation (hasLayerNorm) is not supported by per-example clipping; use it without layer norm", where);
  }

  private static RNNFormat format(Layer layer) {
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    return conf instanceof BaseRecurrentLayer ? ((BaseRecurrentLayer) conf).getRnnDataFormat() : RNNFormat.NCW;
  }

  /**
   * Refuses truncated back-propagation through time.
   *
   * @param backpropType the network's {@code backpropType}
   */
  static void checkBackprop(BackpropType backpropType) {
    checkArgument(backpropType != BackpropType.TruncatedBPTT, "truncated back-propagation through time (backpropType "
        + "TruncatedBPTT) is not supported by per-example clipping: it splits each example's sequence over several "
        + "updates, so one update's clipping does not bound the example's influence; use BackpropType.Standard");
  }
}
