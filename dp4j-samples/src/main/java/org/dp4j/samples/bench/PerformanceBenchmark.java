package org.dp4j.samples.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.pld.PldAccountant;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.DpMbcdConfig;
import org.dp4j.accounting.hiddenstate.DpMbcdStepAccountant;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.mbcd.DpMbcdTrainer;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledBatch;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * dp4j's benchmark suite (not a test): DP-SGD steps against DL4J's non-private {@code fit} on the same batch, at 1
 * and 2 threads (ND4J and BLAS thread counts switched in process), DL4J's own {@code fit} on a
 * {@code PrivateMultiLayerNetwork} against {@code DpSgdStep} (same step, DL4J's loop and updater), for the
 * 784-256-256-10 MLP, an MNIST-shaped CNN and the tanh CNN of {@code dp4j train --model cnn} (batch 256,
 * float32; the DP step with prefetched and with synchronous secure noise); the vectorised clipped sum against
 * the exact one-example-at-a-time reference; the accountants (sampled-Gaussian ε for 10⁵ steps, calibration, the
 * DP-MBCD privacy ledger per step) and one DP-MBCD epoch. Cases of a group are interleaved in blocks of 10 runs in
 * one process; prints a table (min / p10 / median / max ms, ratios to the baseline at the same quantile) and peak
 * memory per model, and writes everything to a JSON file. "gemmfloor" rows time the matrix products of a DP step
 * alone ({@link GemmFloor}); their ratio is to the DP step.
 *
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.PerformanceBenchmark \
 *     [--rounds 25] [--json target/performance.json] [--quick] [--only mlp,privatefit,cnn,exact,accounting,dpmbcd]
 * </pre>
 */
public final class PerformanceBenchmark {
  private static final int BLOCK = 10;
  static final int BATCH = 256;

  private final List<Measurement> rows = new ArrayList<>();
  private final Map<String, Object> memory = new LinkedHashMap<>();

  private PerformanceBenchmark() {}

  public static void main(String[] args) throws IOException {
    int rounds = 25;
    boolean quick = false;
    List<String> sections = List.of("mlp", "privatefit", "cnn", "exact", "accounting", "dpmbcd");
    File json = new File("target/performance.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--json" -> json = new File(args[++i]);
        case "--quick" -> quick = true;
        case "--only" -> sections = List.of(args[++i].split(","));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: [--rounds R] [--json FILE] [--quick] [--only mlp,privatefit,cnn,exact,accounting,dpmbcd]");
      }
    }
    if (quick) {
      rounds = Math.min(rounds, 3);
    }
    PerformanceBenchmark b = new PerformanceBenchmark();
    if (sections.contains("mlp")) {
      b.mlp(rounds);
    }
    if (sections.contains("privatefit")) {
      b.privateFit(rounds);
    }
    if (sections.contains("cnn")) {
      b.cnn(rounds);
    }
    if (sections.contains("exact")) {
      b.exactReference(quick ? 1 : 3);
    }
    if (sections.contains("accounting")) {
      b.accounting(quick);
    }
    if (sections.contains("dpmbcd")) {
      b.dpMbcdEpoch(quick ? 1 : 3);
    }
    b.print();
    b.write(json);
  }

  /** Number of threads of ND4J's own ops and of BLAS, through the backend-neutral API. */
  private static void threads(int n) {
    Nd4j.getEnvironment().setMaxThreads(n);
    Nd4j.getEnvironment().setMaxMasterThreads(n);
    Nd4j.factory().blas().setMaxThreads(n);
  }

  private InterleavedTimer timer() {
    return new InterleavedTimer(BLOCK, 3, PerformanceBenchmark::threads, () -> { });
  }

  private static NeuralNetConfiguration.ListBuilder base(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(updater)
        .weightInit(WeightInit.XAVIER).list();
  }

  static MultiLayerConfiguration mlp(IUpdater updater) {
    return base(updater)
        .layer(new DenseLayer.Builder().nIn(784).nOut(256).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(256).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(784)).build();
  }

  /** conv 5×5×16 – max-pool 2 – conv 5×5×32 – max-pool 2 – dense 10 on 28×28×1. */
  static MultiLayerConfiguration cnn(IUpdater updater) {
    return base(updater)
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(16).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new ConvolutionLayer.Builder(5, 5).nOut(32).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(28, 28, 1)).build();
  }

  static MultiLayerNetwork init(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }

  /** DP-SGD with C = 1, z = 1.1, expected batch {@link #BATCH}, plain SGD 0.01: the benchmarks' private updater. */
  static DpSgd dp() {
    return DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(BATCH).baseUpdater(new Sgd(0.01))
        .build();
  }

  /** One-hot labels [n, 10], example i of class i mod 10. */
  static INDArray oneHot(int n) {
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 10);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    return y;
  }

  private void mlp(int rounds) {
    Nd4j.getRandom().setSeed(3);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
    INDArray y = oneHot(BATCH);
    MultiLayerNetwork plain = init(mlp(new Sgd(0.01)));
    DpSgdStep step = DpSgdStep.of(init(mlp(dp())));
    DpSgdStep syncNoise = DpSgdStep.of(init(mlp(dp())), GaussianNoise.secure());
    // Memory first, the private step alone (native memory is rarely returned, so the order matters).
    recordMemory("mlp", plain.numParams(), step.isFused(), () -> step.apply(x, y), () -> plain.fit(x, y));
    rows.addAll(timer()
        .add("mlp.fit.t1", "", 1, () -> plain.fit(x, y))
        .add("mlp.dp.t1", "mlp.fit.t1", 1, () -> step.apply(x, y))
        .add("mlp.dp.syncnoise.t1", "mlp.fit.t1", 1, () -> syncNoise.apply(x, y))
        .add("mlp.fit.t2", "mlp.fit.t1", 2, () -> plain.fit(x, y))
        .add("mlp.dp.t2", "mlp.fit.t2", 2, () -> step.apply(x, y))
        .add("mlp.gemmfloor.t1", "mlp.dp.t1", 1, new GemmFloor(plain, x))
        .run(rounds));
    threads(1);
  }

  /**
   * The same 256 rows as one sampled batch, as a SampledDataSetIterator hands it to net.fit (drawn once, so the
   * private fit is timed on the step alone, like DpSgdStep.apply).
   */
  private static SampledBatch wholeBatch(INDArray x, INDArray y) {
    SamplingPlan plan = PoissonSampler.withExpectedBatchSize(60_000, BATCH, AesCtrRandom.secure()).plan();
    int[] all = java.util.stream.IntStream.range(0, (int) x.size(0)).toArray();
    BatchSampler everyRow = new BatchSampler() {
      @Override
      public SamplingPlan plan() {
        return plan;
      }

      @Override
      public int[] nextBatch() {
        return all;
      }
    };
    IndexedData rows = new IndexedData() {
      @Override
      public int size() {
        return plan.datasetSize();
      }

      @Override
      public org.nd4j.linalg.dataset.DataSet rows(int[] indices) {
        return new org.nd4j.linalg.dataset.DataSet(x, y);
      }
    };
    return SampledDataSetIterator.of(rows, everyRow).next();
  }

  /**
   * DL4J's own fit on a PrivateMultiLayerNetwork against DpSgdStep on the same batch (the same private step):
   * with plain SGD (DpSgdStep updates in place, fit goes through DL4J's updater) and with Nesterov momentum (both
   * through DL4J's updater), so the second pair isolates the cost of DL4J's loop.
   */
  private void privateFit(int rounds) {
    Nd4j.getRandom().setSeed(3);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
    INDArray y = oneHot(BATCH);
    SampledBatch batch = wholeBatch(x, y);
    DpSgd momentum = DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(BATCH)
        .baseUpdater(new org.nd4j.linalg.learning.config.Nesterovs(0.01, 0.9)).build();
    DpSgdStep sgdStep = DpSgdStep.of(init(mlp(dp())));
    PrivateMultiLayerNetwork sgdFit = new PrivateMultiLayerNetwork(mlp(dp()));
    sgdFit.init();
    DpSgdStep momentumStep = DpSgdStep.of(init(mlp(momentum)));
    PrivateMultiLayerNetwork momentumFit = new PrivateMultiLayerNetwork(mlp(momentum));
    momentumFit.init();
    rows.addAll(timer()
        .add("mlp.dp.sgd.t1", "", 1, () -> sgdStep.apply(x, y))
        .add("mlp.privatefit.sgd.t1", "mlp.dp.sgd.t1", 1, () -> sgdFit.fit(batch))
        .add("mlp.dp.nesterov.t1", "", 1, () -> momentumStep.apply(x, y))
        .add("mlp.privatefit.nesterov.t1", "mlp.dp.nesterov.t1", 1, () -> momentumFit.fit(batch))
        .run(rounds));
  }

  private void cnn(int rounds) {
    Nd4j.getRandom().setSeed(4);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
    INDArray y = oneHot(BATCH);
    MultiLayerNetwork plain = init(cnn(new Sgd(0.01)));
    DpSgdStep step = DpSgdStep.of(init(cnn(dp())));
    // Memory first, the private step alone (native memory is rarely returned, so the order matters).
    recordMemory("cnn", plain.numParams(), step.isFused(), () -> step.apply(x, y), () -> plain.fit(x, y));
    rows.addAll(fitAgainstStep("cnn", plain, step, x, y, rounds));
    // The tanh CNN of `dp4j train --model cnn` (Papernot et al. 2021), same batch.
    rows.addAll(fitAgainstStep("cnn.tanh", init(ModelZoo.mnistCnn(new Sgd(0.01), 1)),
        DpSgdStep.of(init(ModelZoo.mnistCnn(dp(), 1))), x, y, rounds));
    threads(1);
  }

  /** fit and the DP step at 1 and 2 threads, and the step's GEMMs alone, interleaved. */
  private List<Measurement> fitAgainstStep(String model, MultiLayerNetwork plain, DpSgdStep step, INDArray x,
      INDArray y, int rounds) {
    return timer()
        .add(model + ".fit.t1", "", 1, () -> plain.fit(x, y))
        .add(model + ".dp.t1", model + ".fit.t1", 1, () -> step.apply(x, y))
        .add(model + ".fit.t2", model + ".fit.t1", 2, () -> plain.fit(x, y))
        .add(model + ".dp.t2", model + ".fit.t2", 2, () -> step.apply(x, y))
        .add(model + ".gemmfloor.t1", model + ".dp.t1", 1, new GemmFloor(plain, x))
        .run(rounds);
  }

  /** The exact reference (DL4J's gradient one example at a time) on the same batch, against the DP step. */
  private void exactReference(int runs) {
    for (String model : new String[] {"mlp", "cnn"}) {
      Nd4j.getRandom().setSeed(5);
      INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
      INDArray y = oneHot(BATCH);
      MultiLayerConfiguration conf = model.equals("mlp") ? mlp(dp()) : cnn(dp());
      MultiLayerNetwork net = init(conf);
      DpSgdStep step = DpSgdStep.of(init(conf));
      rows.addAll(new InterleavedTimer(1, 1, PerformanceBenchmark::threads, () -> { })
          .add(model + ".dp.vectorised", "", 1, () -> step.apply(x, y))
          .add(model + ".clip.exact", model + ".dp.vectorised", 1,
              () -> ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT))
          .run(runs));
    }
  }

  private void accounting(boolean quick) {
    double q = 256.0 / 60000;
    rows.add(repeat("sgm.epsilon.1e5steps", quick ? 20 : 200, () -> new SampledGaussianAccountant(Orders.DEFAULT)
        .compose(new SampledGaussianMechanism(q, 1.1), 100_000).guarantee(1e-5, RdpConversion.IMPROVED).epsilon()));
    rows.add(repeat("sgm.calibrate", quick ? 3 : 10, () -> SgmCalibration
        .noiseMultiplier(3, 1e-5, q, 14063, Orders.DEFAULT, RdpConversion.IMPROVED).noiseMultiplier()));
    for (long[] pld : new long[][] {{10_000, 20}, {14_063, 5}, {100_000, 50}}) {
      PldAccountant accountant = PldAccountant.withTolerance(pld[1] / 1000.0);
      rows.add(repeat("pld.epsilon." + pld[0] + "steps.tol" + pld[1] / 1000.0, quick ? 2 : 5,
          () -> accountant.compose(DpEvent.sampledGaussian(q, 1.1).times(pld[0])).epsilon(1e-5).epsilon()));
    }
    DpMbcdConfig config = DpMbcdConfig.builder().datasetSize(60_000).batchSize(256).stepSize(0.05)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01)).block("W0", 0.98, 1.0, 1.0).build();
    // One epoch of ledger steps (234 batches), timed per epoch and reported per step.
    int steps = config.batchesPerEpoch();
    Measurement epoch = repeat("dpmbcd.ledger.epoch", quick ? 3 : 10, () -> {
      PrivacyLedger ledger = PrivacyLedger.builder()
          .accountant(new DpMbcdStepAccountant(config, Orders.DEFAULT, "constant o = 0.01")).delta(1e-5)
          .budget(new PrivacyBudget(1e9, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
      for (int i = 0; i < steps; i++) {
        ledger.tryStep();
      }
      return ledger.steps();
    });
    double[] perStep = epoch.ms().clone();
    for (int i = 0; i < perStep.length; i++) {
      perStep[i] /= steps;
    }
    rows.add(epoch);
    rows.add(new Measurement("dpmbcd.ledger.step", "", perStep));
  }

  /** One DP-MBCD epoch on 2,048 random examples, batch 256, the 784-256-256-10 lifted MLP (MSE). */
  private void dpMbcdEpoch(int runs) {
    Nd4j.getRandom().setSeed(6);
    int n = 2048;
    INDArray x = Nd4j.rand(DataType.FLOAT, n, 784);
    INDArray y = oneHot(n);
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).list()
        .layer(new DenseLayer.Builder().nIn(784).nOut(256).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nIn(256).nOut(256).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(256).nOut(10).activation(Activation.IDENTITY).build())
        .build();
    MultiLayerNetwork net = init(conf);
    DpMbcdTrainer trainer = DpMbcdTrainer.builder(net, x, y).batchSize(256).epochs(runs + 1).learningRate(0.1)
        .clipNorm(1.0).activationNormBound(1.0).noiseSchedule(NoiseTemperatureSchedule.constant(1e-3)).build();
    rows.add(repeat("dpmbcd.epoch.2048x256", runs, () -> {
      trainer.trainEpoch();
      return trainer.epochsCompleted();
    }));
  }

  /** Sequential repeats after a warm-up of max(1, repeats/5). */
  private static Measurement repeat(String name, int repeats, DoubleSupplier work) {
    double sink = 0;
    for (int i = 0; i < Math.max(1, repeats / 5); i++) {
      sink += work.getAsDouble();
    }
    double[] ms = new double[repeats];
    for (int i = 0; i < repeats; i++) {
      long t0 = System.nanoTime();
      sink += work.getAsDouble();
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    if (Double.isNaN(sink)) {
      throw new IllegalStateException(name + " returned NaN");
    }
    return new Measurement(name, "", ms);
  }

  private void recordMemory(String model, long params, boolean fused, Runnable dpStep, Runnable fit) {
    threads(1);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("parameters", params);
    m.put("fusedDensePath", fused);
    m.put("dpStep", MemoryHighWater.measure(dpStep, 20));
    m.put("fit", MemoryHighWater.measure(fit, 20));
    memory.put(model, m);
  }

  private Measurement find(String name) {
    return rows.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
  }

  private void print() {
    System.out.printf("%nfloat32, batch %d, OMP_NUM_THREADS=%s, %d cores, load %.2f; ms per run%n", BATCH,
        System.getenv("OMP_NUM_THREADS"), Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.printf("%-26s %5s %9s %9s %9s %9s   %-18s %6s %6s %6s%n", "case", "runs", "min", "p10", "median",
        "max", "ratio to", "min", "p10", "median");
    for (Measurement r : rows) {
      System.out.printf("%-26s %5d %9.3f %9.3f %9.3f %9.3f", r.name(), r.runs(), r.min(), r.p10(), r.median(),
          r.max());
      if (!r.baseline().isEmpty()) {
        Measurement b = find(r.baseline());
        System.out.printf("   %-18s %6.3f %6.3f %6.3f", r.baseline(), r.min() / b.min(), r.p10() / b.p10(),
            r.median() / b.median());
      }
      System.out.println();
    }
    speedups().forEach((name, x) -> System.out.printf("speed-up of 2 threads over 1, %s (median): %.2fx%n", name, x));
    memory.forEach((model, m) -> System.out.printf("memory %s: %s%n", model, m));
  }

  /** Median time at 1 thread over median time at 2 threads, per model and step. */
  private Map<String, Double> speedups() {
    Map<String, Double> s = new LinkedHashMap<>();
    for (String c : new String[] {"mlp.fit", "mlp.dp", "cnn.fit", "cnn.dp", "cnn.tanh.fit", "cnn.tanh.dp"}) {
      if (rows.stream().anyMatch(r -> r.name().equals(c + ".t2"))) {
        s.put(c, find(c + ".t1").median() / find(c + ".t2").median());
      }
    }
    return s;
  }

  private void write(File json) throws IOException {
    List<Map<String, Object>> cases = new ArrayList<>();
    for (Measurement r : rows) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("name", r.name());
      c.put("runs", r.runs());
      c.put("minMs", r.min());
      c.put("p10Ms", r.p10());
      c.put("medianMs", r.median());
      c.put("maxMs", r.max());
      if (!r.baseline().isEmpty()) {
        Measurement b = find(r.baseline());
        c.put("baseline", r.baseline());
        c.put("ratioMin", r.min() / b.min());
        c.put("ratioP10", r.p10() / b.p10());
        c.put("ratioMedian", r.median() / b.median());
      }
      cases.add(c);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("time", Instant.now().toString());
    out.put("ompNumThreads", System.getenv("OMP_NUM_THREADS"));
    out.put("cores", Runtime.getRuntime().availableProcessors());
    out.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.put("batch", BATCH);
    out.put("dataType", "float32");
    out.put("cases", cases);
    out.put("speedupTwoThreadsMedian", speedups());
    out.put("memory", memory);
    byte[] bytes = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(out);
    org.dp4j.io.AtomicFiles.write(json.toPath(), o -> o.write(bytes));
    System.out.println("wrote " + json);
  }
}
