package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Average pooling as a linear, parameter-free map on flat NCHW rows: every output is the mean of its
 * k_h×k_w window, padding counted in the divisor (docs/errata.md#dp-mbcd-convolution: max pooling is not linear, average
 * pooling is, so the lifted network folds it into the next block's linear map). Its transpose spreads each
 * output's value /(k_h·k_w) back over its window (col2im). ‖pool(x)‖ ≤ ‖x‖, so a bound ρ on ‖x‖ also bounds
 * the pooled input of the next block.
 */
final class AveragePooling implements LinearMap {
  private final ConvolutionGeometry window;

  AveragePooling(ConvolutionGeometry window) {
    this.window = window;
  }

  /** The window geometry (its output maps are the next layer's input). */
  ConvolutionGeometry window() {
    return window;
  }

  @Override
  public INDArray apply(INDArray rows) {
    INDArray cols = window.columns(rows);
    return cols.mean(2, 3).reshape('c', rows.rows(), (long) window.channels() * window.positions());
  }

  @Override
  public INDArray adjoint(INDArray rows) {
    long b = rows.rows();
    long c = window.channels();
    INDArray cols = rows.reshape('c', b, c, 1, 1, window.outHeight(), window.outWidth())
        .broadcast(columnShape(b)).divi(window.windowArea());
    return window.accumulate(cols);
  }

  private long[] columnShape(long b) {
    return new long[] {b, window.channels(), window.kernelHeight(), window.kernelWidth(),
        window.outHeight(), window.outWidth()};
  }
}
