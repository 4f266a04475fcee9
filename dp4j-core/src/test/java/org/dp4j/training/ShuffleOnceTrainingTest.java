package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** DP-SGD with a shuffle-once partition and the certified softmax-regression ledger (both threat models). */
class ShuffleOnceTrainingTest {
  static MultiLayerNetwork softmax(int batch) {
    DpSgd dp = DpSgd.builder().clipNorm(1).noiseMultiplier(1).expectedBatchSize(batch).baseUpdater(new Sgd(0.3))
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(1)
        .dataType(DataType.FLOAT).updater(dp).l2(0.01).l2Bias(0.01).list()
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(10).nOut(2)
            .activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    return net;
  }

  @Test
  void certifiedRunReportsCompositionAndHiddenStateEachEpoch() {
    DataSet blobs = DpSgdTrainerTest.blobs(1000);
    FeatureClippedData data = FeatureClippedData.of(IndexedData.of(blobs), 3.0); // β = 5.01, η < 0.3992
    MultiLayerNetwork net = softmax(100);
    ShuffleOncePartition sampler = new ShuffleOncePartition(1000, 100, AesCtrRandom.insecureFixedSeed(2));
    SoftmaxRegressionCertificate cert = SoftmaxRegressionCertificate.certify(net, data, sampler.plan(), 5);
    PrivacyLedger ledger = cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT);
    // Secure noise: an insecure source would void every guarantee, hidden-state bounds included.
    TrainingResult r = DpSgdTrainer.builder(net, data).sampler(sampler).ledger(ledger).epochs(5)
        .noise(GaussianNoise.secure()).build().train();
    assertThat(r.guaranteesVoidBecause()).isEmpty();
    assertThat(r.stopReason()).isEqualTo(StopReason.COMPLETED);
    assertThat(r.steps()).isEqualTo(50);
    assertThat(ledger.rows()).hasSize(5);
    LedgerRow last = ledger.rows().get(4);
    assertThat(last.composition().orElseThrow().relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(last.hiddenState().orElseThrow().accountant()).isEqualTo(CertifiedYeShokriStepAccountant.NAME);
    assertThat(last.hiddenState().orElseThrow().epsilon()).isLessThan(last.composition().orElseThrow().epsilon());
    // Composition grows with the epochs; the hidden-state bound (Thm 5.2) grows far less.
    double comp1 = ledger.rows().get(0).composition().orElseThrow().epsilon();
    assertThat(last.composition().orElseThrow().epsilon()).isGreaterThan(1.5 * comp1);
    Evaluation eval = new Evaluation(2);
    eval.eval(blobs.getLabels(), net.output(FeatureClippedData.clip(blobs.getFeatures(), 3.0)));
    assertThat(eval.accuracy()).isGreaterThan(0.9);
  }

  @Test
  void samplersAndDataTheCertificateDoesNotCoverAreRefused() {
    DataSet blobs = DpSgdTrainerTest.blobs(1000);
    FeatureClippedData data = FeatureClippedData.of(IndexedData.of(blobs), 3.0);
    MultiLayerNetwork net = softmax(100);
    ShuffleOncePartition sampler = new ShuffleOncePartition(1000, 100, AesCtrRandom.insecureFixedSeed(2));
    SoftmaxRegressionCertificate cert = SoftmaxRegressionCertificate.certify(net, data, sampler.plan(), 5);
    assertThatThrownBy(() -> DpSgdTrainer.builder(net, data)
        .sampler(PoissonSampler.withExpectedBatchSize(1000, 100, AesCtrRandom.insecureFixedSeed(1)))
        .ledger(cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT)).epochs(5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shuffle-once fixed partition")
        .hasMessageContaining("the sampler is Poisson sampling");
    assertThatThrownBy(() -> DpSgdTrainer.builder(net, data)
        .sampler(new ShuffleOncePartition(1000, 50, AesCtrRandom.insecureFixedSeed(1)))
        .ledger(cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT)).epochs(5).build())
        .hasMessageContaining("b = 100 but the sampler draws b = 50");
    assertThatThrownBy(() -> DpSgdTrainer.builder(net, IndexedData.of(blobs)).sampler(sampler)
        .ledger(cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT)).epochs(5).build())
        .hasMessageContaining("clipped by FeatureClippedData");
    FeatureClippedData wider = FeatureClippedData.of(IndexedData.of(blobs), 2.0);
    assertThatThrownBy(() -> DpSgdTrainer.builder(net, wider).sampler(sampler)
        .ledger(cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT)).epochs(5).build())
        .hasMessageContaining("does not describe this run");
  }
}
