package org.dp4j.clipping;

import static org.dp4j.clipping.SequenceArrays.maskColumn;
import static org.dp4j.clipping.SequenceArrays.step;
import static org.dp4j.clipping.SequenceArrays.stepCopy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.AbstractLSTM;
import org.deeplearning4j.nn.conf.layers.BaseRecurrentLayer;
import org.deeplearning4j.nn.params.LSTMParamInitializer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * {@code LSTM} and {@code GravesLSTM} (peepholes): a batched forward and backward pass through time that keeps the
 * gate errors DL4J's {@code LSTMHelpers} does not expose, with DL4J's exact math: gate blocks in the order
 * [i, f, o, g] of the weight columns (i: block input with the layer's activation; f, o, g: gates with the gate
 * activation), c_t = f⊙c_{t-1} + g⊙i, h_t = o⊙act(c_t), Graves' peepholes f += c_{t-1}⊙w_FF, g += c_{t-1}⊙w_GG,
 * o += c_t⊙w_OO (the three last columns of the recurrent weights, in the order FF, OO, GG), zero initial state,
 * full back-propagation through time. A feature mask m_t multiplies h_t and c_t, as DL4J's forward pass does; the
 * errors are the exact derivative of that pass, so a masked step has zero gate errors and contributes nothing
 * (DL4J's own backward pass of {@code LSTM} ignores the mask, which differs only for masks that are not trailing
 * padding).
 *
 * <p>The input projection x_t·W of all steps is one matrix product, as is the input error; only the recurrent
 * product h_{t-1}·R is per step. Example i's gradient of [W; R; b] is Σ_t [x_{i,t}; h_{i,t-1}; 1] δ_{i,t}ᵀ
 * ({@link TimeSummedGradients}: Gram identity over time or materialised, whichever is cheaper); the peephole
 * gradients Σ_t δ⊙c are per-example vectors (Hochreiter &amp; Schmidhuber 1997; Gers et al. 2002 for peepholes;
 * the per-example sum over steps as in Opacus' DPLSTM).
 */
final class LstmGradients implements PerExampleLayer {
  private static final String W = LSTMParamInitializer.INPUT_WEIGHT_KEY;
  private static final String RW = LSTMParamInitializer.RECURRENT_WEIGHT_KEY;
  private static final String B = LSTMParamInitializer.BIAS_KEY;

  private final Function<String, INDArray> params;
  private final String where;
  private final boolean peepholes;
  private final IActivation activation;
  private final IActivation gate;
  private final RNNFormat format;
  private final long units;
  private final long chunkElements;
  private INDArray mask;        // [n, T] or null
  private INDArray input;       // [n, T, nIn]
  private INDArray pre;         // [T, n, 4H] gate pre-activations
  private INDArray act;         // [T, n, 4H] gate activations
  private INDArray cellRaw;     // [T, n, H] cell state before the mask
  private INDArray cell;        // [T, n, H] cell state after the mask (what the next step reads)
  private INDArray cellAct;     // [T, n, H] act(cell state before the mask)
  private INDArray out;         // [T, n, H]
  private INDArray delta;       // [T, n, 4H]
  private INDArray[] peepholeGradients;   // FF, OO, GG: [n, H] each
  private TimeSummedGradients block;

  /**
   * @param conf the LSTM's configuration
   * @param params its parameters by key (W, RW, b)
   */
  LstmGradients(AbstractLSTM conf, Function<String, INDArray> params, String where, boolean peepholes,
      long chunkElements) {
    this.params = params;
    this.where = where;
    this.peepholes = peepholes;
    this.activation = conf.getActivationFn();
    this.gate = conf.getGateActivationFn();
    this.format = ((BaseRecurrentLayer) conf).getRnnDataFormat();
    this.units = conf.getNOut();
    this.chunkElements = chunkElements;
  }

  @Override
  public void setInputMask(INDArray mask) {
    this.mask = mask;
  }

  private INDArray gateBlock(INDArray rows, int gateIndex) {
    return rows.get(NDArrayIndex.all(), NDArrayIndex.interval(gateIndex * units, (gateIndex + 1) * units));
  }

  private INDArray peephole(int column) {
    return params.apply(RW).get(NDArrayIndex.all(), NDArrayIndex.point(4 * units + column)).reshape(1, units);
  }

  @Override
  public INDArray forward(INDArray in) {
    input = SequenceArrays.batchMajor(in, format, where);
    long n = input.size(0);
    long steps = input.size(1);
    INDArray m = SequenceArrays.mask(mask, input.dataType(), n, steps, where);
    mask = m;
    INDArray recurrent = params.apply(RW).get(NDArrayIndex.all(), NDArrayIndex.interval(0, 4 * units));
    // x_t·W + b for every step in one product.
    INDArray projected = input.reshape('c', n * steps, input.size(2)).mmul(params.apply(W))
        .addiRowVector(params.apply(B)).reshape('c', n, steps, 4 * units);
    pre = Nd4j.create(input.dataType(), steps, n, 4 * units);
    act = pre.ulike();
    cellRaw = Nd4j.create(input.dataType(), steps, n, units);
    cell = cellRaw.ulike();
    cellAct = cellRaw.ulike();
    out = cellRaw.ulike();
    INDArray hPrev = null;
    INDArray cPrev = null;
    for (long t = 0; t < steps; t++) {
      INDArray z = stepCopy(projected, t);
      if (hPrev != null) {
        z.addi(hPrev.mmul(recurrent));
      }
      if (peepholes && cPrev != null) {
        gateBlock(z, 1).addi(cPrev.mulRowVector(peephole(0)));
        gateBlock(z, 3).addi(cPrev.mulRowVector(peephole(2)));
      }
      INDArray a = z.dup('c');
      activation.getActivation(gateBlock(a, 0), true);
      gate.getActivation(gateBlock(a, 1), true);
      gate.getActivation(gateBlock(a, 3), true);
      INDArray c = gateBlock(a, 3).mul(gateBlock(a, 0));
      if (cPrev != null) {
        c.addi(gateBlock(a, 1).mul(cPrev));
      }
      if (peepholes) {
        gateBlock(z, 2).addi(c.mulRowVector(peephole(1)));
        gateBlock(a, 2).assign(gateBlock(z, 2));
      }
      gate.getActivation(gateBlock(a, 2), true);
      INDArray ca = activation.getActivation(c.dup('c'), true);
      INDArray h = gateBlock(a, 2).mul(ca);
      step(cellRaw, t).assign(c);
      if (m != null) {
        h.muliColumnVector(maskColumn(m, t));
        c.muliColumnVector(maskColumn(m, t));
      }
      step(pre, t).assign(z);
      step(act, t).assign(a);
      step(cell, t).assign(c);
      step(cellAct, t).assign(ca);
      step(out, t).assign(h);
      hPrev = h;
      cPrev = c;
    }
    return SequenceArrays.toFormat(out.permute(1, 0, 2), format);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray eps = SequenceArrays.batchMajor(outputError, format, where);
    long steps = eps.size(1);
    INDArray recurrentT = params.apply(RW).get(NDArrayIndex.all(), NDArrayIndex.interval(0, 4 * units))
        .transpose();
    delta = pre.like();
    INDArray dNext = null;
    INDArray dcNext = null;
    for (long t = steps - 1; t >= 0; t--) {
      INDArray dh = stepCopy(eps, t);
      if (dNext != null) {
        dh.addi(dNext.mmul(recurrentT));
      }
      if (mask != null) {
        dh.muliColumnVector(maskColumn(mask, t));    // h_t = m_t·o⊙act(c)
      }
      INDArray z = step(pre, t);
      INDArray a = step(act, t);
      // Derivatives from the kept outputs (a = σ(z), cellAct = act(cellRaw)): bit for bit DL4J's backprop.
      INDArray dOut = ActivationBackprop.dLdz(gate, gateBlock(z, 2).dup('c'), gateBlock(a, 2),
          dh.mul(step(cellAct, t)));
      INDArray dc = ActivationBackprop.dLdz(activation, step(cellRaw, t).dup('c'), step(cellAct, t),
          dh.mul(gateBlock(a, 2)));
      if (dcNext != null) {
        // The error on the (masked) c_t from step t+1: through its forget gate and its two peepholes.
        INDArray future = gateBlock(step(act, t + 1), 1).mul(dcNext);
        if (peepholes) {
          future.addi(gateBlock(dNext, 1).mulRowVector(peephole(0)));
          future.addi(gateBlock(dNext, 3).mulRowVector(peephole(2)));
        }
        if (mask != null) {
          future.muliColumnVector(maskColumn(mask, t));
        }
        dc.addi(future);
      }
      if (peepholes) {
        dc.addi(dOut.mulRowVector(peephole(1)));
      }
      INDArray d = step(delta, t);
      if (t > 0) {
        gateBlock(d, 1).assign(ActivationBackprop.dLdz(gate, gateBlock(z, 1).dup('c'), gateBlock(a, 1),
            dc.mul(step(cell, t - 1))));
      }
      gateBlock(d, 0).assign(ActivationBackprop.dLdz(activation, gateBlock(z, 0).dup('c'), gateBlock(a, 0),
          dc.mul(gateBlock(a, 3))));
      gateBlock(d, 2).assign(dOut);
      gateBlock(d, 3).assign(ActivationBackprop.dLdz(gate, gateBlock(z, 3).dup('c'), gateBlock(a, 3),
          dc.mul(gateBlock(a, 0))));
      dNext = d;
      dcNext = dc;
    }
    prepareGradients();
    return needInputError ? SequenceArrays.inputError(delta, params.apply(W), format) : null;
  }

  private void prepareGradients() {
    block = new TimeSummedGradients(List.of(input, SequenceArrays.timeToBatchMajor(SequenceArrays.previousStep(out))),
        SequenceArrays.timeToBatchMajor(delta), true, chunkElements);
    if (peepholes) {
      INDArray cPrev = SequenceArrays.previousStep(cell);
      peepholeGradients = new INDArray[] {
          gateDeltas(1).muli(cPrev).sum(0), gateDeltas(2).muli(cell).sum(0), gateDeltas(3).muli(cPrev).sum(0)};
    }
    pre = null;
    act = null;
    cellAct = null;
  }

  /** The errors of one gate block over all steps, [T, n, H] (a copy). */
  private INDArray gateDeltas(int gateIndex) {
    return delta.get(NDArrayIndex.all(), NDArrayIndex.all(),
        NDArrayIndex.interval(gateIndex * units, (gateIndex + 1) * units)).dup('c');
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    INDArray sq = block.squaredNorms();
    if (peepholes) {
      for (INDArray p : peepholeGradients) {
        INDArray norm = p.norm2(1);
        sq.addi(norm.muli(norm).reshape(sq.shape()));
      }
    }
    return sq;
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    INDArray rw = gradientViews.get(RW);
    block.writeScaledSum(scale,
        List.of(gradientViews.get(W), rw.get(NDArrayIndex.all(), NDArrayIndex.interval(0, 4 * units))),
        gradientViews.get(B));
    if (peepholes) {
      for (int k = 0; k < 3; k++) {
        rw.get(NDArrayIndex.all(), NDArrayIndex.point(4 * units + k))
            .assign(peepholeGradients[k].transpose().mmul(scale).reshape(units));
      }
    }
  }
}
