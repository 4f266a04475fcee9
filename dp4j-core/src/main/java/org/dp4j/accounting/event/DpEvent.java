package org.dp4j.accounting.event;

import java.util.List;

/**
 * What a training run did, as an immutable value that any accountant can evaluate (after
 * dp_accounting's {@code DpEvent} algebra): describe the run once, ask every applicable accountant.
 * Sensitivities are normalised to 1 under add/remove neighbours (noise multiplier z = noise std /
 * clip norm); the neighbouring relation and the privacy unit are chosen when accounting, not here.
 *
 * <pre>{@code
 * DpEvent run = DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063)
 *     .then(DpEvent.sampledGaussian(512.0 / 60000, 2.0).times(1000));   // a second phase
 * RdpCurve rdp = RdpEventAccountant.curve(run, Orders.DEFAULT);
 * PldGuarantee pld = PldAccountant.withDefaults().guarantee(run, 1e-5, PrivacyUnit.RECORD);
 * }</pre>
 */
public sealed interface DpEvent permits GaussianEvent, PoissonSampledEvent, SelfComposedEvent, ComposedEvent {
  /** One release of a sum of sensitivity 1 with N(0, z²) noise. */
  static DpEvent gaussian(double noiseMultiplier) {
    return new GaussianEvent(noiseMultiplier);
  }

  /** One DP-SGD step: Poisson sampling with rate q, then the Gaussian mechanism with multiplier z. */
  static DpEvent sampledGaussian(double samplingRate, double noiseMultiplier) {
    return new PoissonSampledEvent(samplingRate, new GaussianEvent(noiseMultiplier));
  }

  /** This event run {@code count} times (adaptively). */
  default DpEvent times(long count) {
    return new SelfComposedEvent(this, count);
  }

  /** This event followed by {@code next}. */
  default DpEvent then(DpEvent next) {
    return new ComposedEvent(List.of(this, next));
  }
}
