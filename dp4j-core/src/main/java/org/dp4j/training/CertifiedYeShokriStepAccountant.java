package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.YeShokriShuffleStepAccountant;
import org.dp4j.accounting.ledger.RdpStepAccountant;
import org.dp4j.sampling.SamplingPlan;

/**
 * The hidden-state bound of Ye &amp; Shokri Cor. 6.3 (Thm 5.2 with G(α) = 2α/σ_mul², per epoch; docs/accountants.md#ye-shokri-certified)
 * for a run whose constants a {@link SoftmaxRegressionCertificate} derived from the configuration: the numbers
 * are those of {@link YeShokriShuffleStepAccountant}, the assumptions say what was certified instead of
 * "user-asserted". The trainer re-checks the certificate against its network, data and sampler.
 *
 * <pre>{@code
 * // given: SoftmaxRegressionCertificate certificate
 * RdpStepAccountant acc = new CertifiedYeShokriStepAccountant(certificate, Orders.DEFAULT);
 * }</pre>
 */
public final class CertifiedYeShokriStepAccountant implements RdpStepAccountant, NetworkCoverage {
  public static final String NAME = "ye-shokri-cor6.3-certified";

  private final SoftmaxRegressionCertificate certificate;
  private final YeShokriShuffleStepAccountant bound;

  public CertifiedYeShokriStepAccountant(SoftmaxRegressionCertificate certificate, Orders orders) {
    this.certificate = checkNotNull(certificate, "certificate");
    this.bound = new YeShokriShuffleStepAccountant(certificate.config(), orders);
  }

  public SoftmaxRegressionCertificate certificate() {
    return certificate;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String theorem() {
    return "Ye & Shokri 2022, Cor. 6.3 (Eqs. (28)-(29), Thm 5.2 form; docs/accountants.md#ye-shokri-certified), constants certified from "
        + "the configuration, evaluated at the end of the current epoch";
  }

  @Override
  public ThreatModel threatModel() {
    return bound.threatModel();
  }

  @Override
  public NeighbouringRelation relation() {
    return bound.relation();
  }

  /** The certified conditions, then the theorem's assumptions (its loss constants marked as certified). */
  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>(certificate.certifiedConditions());
    list.addAll(bound.assumptions());
    return list;
  }

  @Override
  public Orders orders() {
    return bound.orders();
  }

  @Override
  public long steps() {
    return bound.steps();
  }

  @Override
  public RdpCurve curve() {
    return bound.curve();
  }

  @Override
  public RdpCurve curveAfter(long more) {
    return bound.curveAfter(more);
  }

  @Override
  public void advance(long count) {
    bound.advance(count);
  }

  @Override
  public String mechanismDescription() {
    return "certified " + certificate + "; " + bound.mechanismDescription();
  }

  /**
   * The sampling and noise checks of the uncertified bound; the network and data are checked by
   * {@link #requireCovers(MultiLayerNetwork, IndexedData, SamplingPlan)}.
   */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    bound.requireCovers(plan, noiseMultiplier);
    checkArgument(noiseMultiplier == certificate.noiseMultiplier(),
        "the certificate is for noise multiplier %s but the run adds noise with multiplier %s",
        certificate.noiseMultiplier(), noiseMultiplier);
  }

  /** The certificate must describe this network, data and sampler (constants re-derived and compared). */
  @Override
  public void requireCovers(MultiLayerNetwork net, IndexedData data, SamplingPlan plan) {
    certificate.requireCovers(net, data, plan);
  }
}
