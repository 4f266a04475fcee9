package org.dp4j.updater;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.GradientUpdater;

/**
 * The {@link GradientUpdater} of {@link DpSgd}: hands the already privatised gradient to the base updater, and
 * refuses any gradient that was not privatised by {@link PrivateGradient} (through {@link DpSgdStep} or a private
 * network's {@code fit}) — such as the unclipped batch mean of a plain network's {@code fit} — so a DP
 * configuration can never train without privacy by accident.
 */
final class DpSgdUpdater implements GradientUpdater<DpSgd> {
  private static final ThreadLocal<Boolean> PRIVATISED = ThreadLocal.withInitial(() -> Boolean.FALSE);

  private final DpSgd config;
  private final GradientUpdater<?> base;

  DpSgdUpdater(DpSgd config, GradientUpdater<?> base) {
    this.config = config;
    this.base = base;
  }

  /** Runs {@code update} with the guard open: the gradient it applies is clipped and noised. */
  static void applyPrivatised(Runnable update) {
    PRIVATISED.set(Boolean.TRUE);
    try {
      update.run();
    } finally {
      PRIVATISED.set(Boolean.FALSE);
    }
  }

  @Override
  public DpSgd getConfig() {
    return config;
  }

  @Override
  public void setState(Map<String, INDArray> stateMap, boolean initialize) {
    base.setState(stateMap, initialize);
  }

  @Override
  public Map<String, INDArray> getState() {
    return base.getState();
  }

  @Override
  public void setStateViewArray(INDArray viewArray, long[] gradientShape, char gradientOrder, boolean initialize) {
    base.setStateViewArray(viewArray, gradientShape, gradientOrder, initialize);
  }

  @Override
  public void applyUpdater(INDArray gradient, int iteration, int epoch) {
    if (!PRIVATISED.get()) {
      ParallelWrapperRefusal.refuseIfInside();
      throw new IllegalStateException("DpSgd received a gradient that was not clipped per example and noised "
          + "(MultiLayerNetwork.fit passes the plain batch mean); train a PrivateMultiLayerNetwork "
          + "(DpSgdSetup.privateNetwork) with net.fit(SampledDataSetIterator, epochs), or step with DpSgdStep");
    }
    base.applyUpdater(gradient, iteration, epoch);
  }
}
