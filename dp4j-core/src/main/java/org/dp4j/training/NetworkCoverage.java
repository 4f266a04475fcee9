package org.dp4j.training;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.sampling.SamplingPlan;

/**
 * A {@link StepAccountant} whose theorem also depends on the network and the data (constants certified from
 * the configuration, such as {@link CertifiedYeShokriStepAccountant}); {@link DpSgdTrainer} calls it after
 * {@link StepAccountant#requireCovers(SamplingPlan, double)}.
 */
public interface NetworkCoverage {
  /** Refuses a network, data or sampler that the accountant's certificate does not describe. */
  void requireCovers(MultiLayerNetwork net, IndexedData data, SamplingPlan plan);
}
