package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.core.storage.Persistable;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.saver.InMemoryModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.DataSetLossCalculator;
import org.deeplearning4j.earlystopping.termination.MaxEpochsTerminationCondition;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingGraphTrainer;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingTrainer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.optimize.api.InvocationType;
import org.deeplearning4j.optimize.listeners.CheckpointListener;
import org.deeplearning4j.optimize.listeners.EvaluativeListener;
import org.deeplearning4j.optimize.listeners.ScoreIterationListener;
import org.deeplearning4j.ui.model.stats.StatsListener;
import org.deeplearning4j.ui.model.stats.api.StatsReport;
import org.deeplearning4j.ui.model.storage.InMemoryStatsStorage;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.PrivateComputationGraph;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.training.SampledMultiDataSetIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.ViewIterator;
import org.nd4j.linalg.dataset.adapter.SingletonMultiDataSetIterator;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * DL4J's own listeners and trainers under private {@code fit}: {@code StatsListener} (with an
 * {@code InMemoryStatsStorage}), {@code ScoreIterationListener}, {@code CheckpointListener} and
 * {@code EvaluativeListener} run and see the normal events; {@code EarlyStoppingTrainer},
 * {@code EarlyStoppingGraphTrainer} and single-batch {@code fit} calls are private steps the ledger counts exactly.
 */
class PrivateFitListenersTest {
  private static final int N = 100;
  private static final int BATCH = 20;

  private static DpSgdSetup setup() {
    return PrivacyLedgerListenerTest.setup(N, BATCH, 1.5);
  }

  private static PrivateMultiLayerNetwork net() {
    return setup().privateNetwork(PrivacyLedgerListenerTest.layers(new Sgd(0.1)).build());
  }

  /** Keeps the gradient DL4J's listeners are shown and the parameters after each update. */
  private static final class Recorder extends BaseTrainingListener {
    final List<INDArray> gradients = new ArrayList<>();
    final List<INDArray> params = new ArrayList<>();

    @Override
    public void onGradientCalculation(Model model) {
      gradients.add(model.gradient().gradient().dup());
    }

    @Override
    public void iterationDone(Model model, int iteration, int epoch) {
      params.add(model.params().dup());
    }
  }

  @Test
  void statsScoreCheckpointAndEvaluativeListenersRunUnderPrivateFit(@TempDir File dir) throws Exception {
    PrivateMultiLayerNetwork net = net();
    SampledDataSetIterator train = SampledDataSetIterator.poisson(PrivacyLedgerListenerTest.records(1, N), BATCH);
    PrivacyLedgerListener privacy = PrivacyLedgerListener.forNetwork(net, train, 1e-5).build();
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    DataSet heldOut = PrivacyLedgerListenerTest.records(2, 30);
    List<Double> accuracies = new ArrayList<>();
    EvaluativeListener evaluative = new EvaluativeListener(new ViewIterator(heldOut, 30), 1,
        InvocationType.EPOCH_END, new Evaluation(3));
    evaluative.setCallback((listener, model, invocations, evaluations) ->
        accuracies.add(((Evaluation) evaluations[0]).accuracy()));
    Recorder recorder = new Recorder();
    net.setListeners(privacy, new StatsListener(storage, 1), new ScoreIterationListener(1),
        new CheckpointListener.Builder(dir).saveEveryNIterations(3).keepAll().build(), evaluative, recorder);
    net.fit(train, 2);

    int steps = net.getIterationCount();
    assertThat(steps).isEqualTo(10);
    assertThat(privacy.ledger().steps()).isEqualTo(steps);
    assertThat(privacy.ledger().rows()).hasSize(2);
    assertThat(privacy.epsilon(ThreatModel.ALL_ITERATES_RELEASED)).isPresent();
    // The UI's storage received one report per step; the score it shows is the documented NaN.
    String session = storage.listSessionIDs().get(0);
    List<Persistable> reports = storage.getAllUpdatesAfter(session, StatsListener.TYPE_ID, 0);
    assertThat(reports).hasSize(steps);
    assertThat(reports).allSatisfy(r -> assertThat(((StatsReport) r).getScore()).isNaN());
    assertThat(net.score()).isNaN();
    // Checkpoints every 3 steps hold the parameters of the step they were saved at.
    List<org.deeplearning4j.optimize.listeners.Checkpoint> checkpoints = CheckpointListener.availableCheckpoints(dir);
    assertThat(checkpoints).hasSize(3);
    for (org.deeplearning4j.optimize.listeners.Checkpoint c : checkpoints) {
      // DL4J's iteration index is 0-based: checkpoint "3" is saved in iterationDone of the 4th update.
      MultiLayerNetwork saved = CheckpointListener.loadCheckpointMLN(dir, c);
      assertThat(saved.params()).isEqualTo(recorder.params.get(c.getIteration()));
    }
    // Held-out evaluation at each epoch end.
    assertThat(accuracies).hasSize(2).allSatisfy(a -> assertThat(a).isBetween(0.0, 1.0));
    // Listeners that release intermediate state are the ones that void hidden-state bounds (this ledger has
    // composition bounds only, which stay valid).
    assertThat(HiddenStateLeakDetector.inspect(net.getListeners()).leaking()).containsExactlyInAnyOrder(
        "StatsListener", "ScoreIterationListener", "CheckpointListener", "EvaluativeListener");
    // onGradientCalculation sees the private gradient: noisy (no exact zero anywhere), and the step applied is
    // θ' = θ − η · g / (qN) with that very gradient.
    assertThat(recorder.gradients).hasSize(steps);
    INDArray g = recorder.gradients.get(5);
    assertThat(g.eq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isZero();
    INDArray applied = recorder.params.get(4).sub(recorder.params.get(5));
    assertThat(applied.sub(g.mul(0.1 / BATCH)).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
  }

  /** a, b → two dense branches merged → class output; b's branch → a regression output. */
  private static PrivateComputationGraph twoInTwoOut() {
    return PrivacyLedgerListenerTest.setup(N, BATCH, 1.5).privateGraph(new NeuralNetConfiguration.Builder().seed(3)
        .dataType(DataType.DOUBLE).updater(new Sgd(0.1)).graphBuilder().addInputs("a", "b")
        .addLayer("da", new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.TANH).build(), "a")
        .addLayer("db", new DenseLayer.Builder().nIn(2).nOut(5).activation(Activation.TANH).build(), "b")
        .addVertex("merge", new MergeVertex(), "da", "db")
        .addLayer("cls", new OutputLayer.Builder(LossFunction.MCXENT).nIn(10).nOut(3).activation(Activation.SOFTMAX)
            .build(), "merge")
        .addLayer("reg", new OutputLayer.Builder(LossFunction.MSE).nIn(5).nOut(1).activation(Activation.IDENTITY)
            .build(), "db")
        .setOutputs("cls", "reg").build());
  }

  private static MultiDataSet multiRecords(int seed) {
    DataSet d = PrivacyLedgerListenerTest.records(seed, N);
    Nd4j.getRandom().setSeed(seed + 100);
    INDArray b = Nd4j.rand(DataType.DOUBLE, N, 2);
    return new org.nd4j.linalg.dataset.MultiDataSet(new INDArray[] {d.getFeatures(), b},
        new INDArray[] {d.getLabels(), b.sum(true, 1)});
  }

  @Test
  void multiInputGraphWithStatsListenerIsCountedStepForStep() {
    PrivateComputationGraph graph = twoInTwoOut();
    SampledMultiDataSetIterator train = SampledMultiDataSetIterator.poisson(multiRecords(1), BATCH);
    PrivacyLedgerListener privacy = PrivacyLedgerListener.forNetwork(graph, train, 1e-5).build();
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    graph.setListeners(privacy, new StatsListener(storage, 1), new ScoreIterationListener(1));
    graph.fit(train, 2);
    assertThat(graph.getIterationCount()).isEqualTo(10);
    assertThat(privacy.ledger().steps()).isEqualTo(10);
    assertThat(storage.getAllUpdatesAfter(storage.listSessionIDs().get(0), StatsListener.TYPE_ID, 0)).hasSize(10);
    // One more single-batch step, counted once.
    train.reset();
    graph.fit(train.next());
    assertThat(privacy.ledger().steps()).isEqualTo(graph.getIterationCount()).isEqualTo(11);
  }

  @Test
  void earlyStoppingTrainersTakeStepsTheLedgerCountsExactly() {
    PrivateMultiLayerNetwork net = net();
    SampledDataSetIterator train = SampledDataSetIterator.poisson(PrivacyLedgerListenerTest.records(1, N), BATCH);
    PrivacyLedgerListener privacy = PrivacyLedgerListener.forNetwork(net, train, 1e-5).build();
    net.setListeners(privacy);
    EarlyStoppingConfiguration<MultiLayerNetwork> es = new EarlyStoppingConfiguration.Builder<MultiLayerNetwork>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(3))
        .scoreCalculator(new DataSetLossCalculator(new ViewIterator(PrivacyLedgerListenerTest.records(2, 30), 30),
            true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<MultiLayerNetwork> result = new EarlyStoppingTrainer(es, net, train).fit();
    assertThat(result.getTotalEpochs()).isEqualTo(3);
    assertThat(net.getIterationCount()).isEqualTo(15);
    assertThat(privacy.ledger().steps()).isEqualTo(15);
    assertThat(privacy.ledger().rows()).extracting(r -> r.steps()).containsExactly(5L, 10L, 15L);
    // A single-batch fit outside the trainer is one more step.
    train.reset();
    net.fit(train.next());
    assertThat(privacy.ledger().steps()).isEqualTo(net.getIterationCount()).isEqualTo(16);

    PrivateComputationGraph graph = twoInTwoOut();
    MultiDataSet data = multiRecords(1);
    SampledMultiDataSetIterator multi = SampledMultiDataSetIterator.poisson(data, BATCH);
    PrivacyLedgerListener graphPrivacy = PrivacyLedgerListener.forNetwork(graph, multi, 1e-5).build();
    graph.setListeners(graphPrivacy);
    EarlyStoppingConfiguration<ComputationGraph> graphEs = new EarlyStoppingConfiguration.Builder<ComputationGraph>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(2))
        .scoreCalculator(new DataSetLossCalculator(new SingletonMultiDataSetIterator(multiRecords(2)), true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<ComputationGraph> graphResult = new EarlyStoppingGraphTrainer(graphEs, graph, multi, null)
        .fit();
    assertThat(graphResult.getBestModel()).isNotNull();
    assertThat(graph.getIterationCount()).isEqualTo(10);
    assertThat(graphPrivacy.ledger().steps()).isEqualTo(10);
    assertThat(graphPrivacy.ledger().rows()).extracting(r -> r.steps()).containsExactly(5L, 10L);
  }
}
