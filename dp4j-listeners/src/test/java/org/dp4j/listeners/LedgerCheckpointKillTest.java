package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.SampledDataSetIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A process killed with SIGKILL while it saves a checkpoint leaves the previous checkpoint intact and
 * resumable; the temporary files the kill strands are removed by the next successful save.
 */
class LedgerCheckpointKillTest {
  private static final int WIDTH = 1000; // ~1M float parameters + momentum: a save takes long enough to be hit

  @Test
  void aSaveKilledHalfWayKeepsThePreviousCheckpoint(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ckpt.zip");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        Saver.class.getName(), file.toString()).redirectErrorStream(true).start();
    boolean killedMidSave = false;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      do {
        line = r.readLine();
      } while (line != null && !line.equals(Saver.FIRST_SAVED));
      assertThat(line).as("the child saved its first checkpoint").isEqualTo(Saver.FIRST_SAVED);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!killedMidSave && System.nanoTime() < deadline) {
        if (!temporaryFiles(dir).isEmpty()) {
          child.destroyForcibly();
          killedMidSave = true;
        } else {
          Thread.onSpinWait();
        }
      }
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(killedMidSave).as("a temporary file appeared, i.e. the child was killed during a save").isTrue();

    // The last completed save (after epoch 1, 10 updates, or a completed save after epoch 2, 20 updates) survived,
    // whole, and its ledger and model still agree.
    long saved = LedgerCheckpoint.readState(file.toFile()).steps();
    assertThat(saved).isIn(10L, 20L);
    PrivacyLedger ledger = Saver.ledger();
    MultiLayerNetwork net = LedgerCheckpoint.restore(file.toFile(), ledger);
    assertThat(net.getIterationCount()).isEqualTo(saved);
    assertThat(ledger.steps()).isEqualTo(saved);

    LedgerCheckpoint.save(net, ledger, file.toFile(), true);
    assertThat(temporaryFiles(dir)).isEmpty();
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(file);
    }
  }

  private static List<Path> temporaryFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".dp4j-tmp")).toList();
    }
  }

  /** Child process: saves one checkpoint after an epoch, says so, then trains and saves until it is killed. */
  static final class Saver {
    static final String FIRST_SAVED = "first checkpoint saved";

    static PrivacyLedger ledger() {
      return PrivacyLedger.builder()
          .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.1, 1.2), Orders.DEFAULT))
          .delta(1e-5).build();
    }

    public static void main(String[] args) {
      File file = new File(args[0]);
      // A private network with the ledger's mechanism (the listener refuses any other): 40 records, expected batch
      // 4 (q = 0.1, 10 steps per epoch), z = 1.2.
      MultiLayerNetwork net = DpSgdSetup.builder().datasetSize(40).expectedBatchSize(4).epochs(1).clipNorm(1.0)
          .noiseMultiplier(1.2).delta(1e-5).build()
          .privateNetwork(new NeuralNetConfiguration.Builder().seed(7)
          .dataType(DataType.FLOAT).updater(new Nesterovs(0.01, 0.9)).list()
          .layer(new DenseLayer.Builder().nIn(WIDTH).nOut(WIDTH).activation(Activation.TANH).build())
          .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(WIDTH).nOut(3)
              .activation(Activation.SOFTMAX).build())
          .build());
      PrivacyLedger ledger = ledger();
      net.setListeners(new PrivacyLedgerListener(ledger));
      INDArray labels = Nd4j.zeros(DataType.FLOAT, 40, 3);
      for (int i = 0; i < 40; i++) {
        labels.putScalar(i, i % 3, 1.0);
      }
      SampledDataSetIterator train = SampledDataSetIterator.poisson(
          new DataSet(Nd4j.rand(DataType.FLOAT, 40, WIDTH), labels), 4);
      net.fit(train);
      LedgerCheckpoint.save(net, ledger, file, false);
      System.out.println(FIRST_SAVED);
      System.out.flush();
      net.fit(train);
      while (true) {
        LedgerCheckpoint.save(net, ledger, file, false);
      }
    }
  }
}
