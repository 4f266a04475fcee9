package org.dp4j.samples.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.spark.DriverRecords;
import org.dp4j.spark.EmbeddedSpark;
import org.dp4j.spark.LabelledRecord;
import org.dp4j.spark.SparkDpSgdTrainer;
import org.dp4j.spark.SparkTrainingResult;
import org.dp4j.training.IndexedData;
import org.dp4j.training.TrainingResult;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import picocli.CommandLine;

/**
 * {@code dp4j train --spark MASTER}: the same DP-SGD run as on one machine (same setup, ledger, budget and callbacks),
 * its steps taken by {@link SparkDpSgdTrainer}. MASTER is {@code local[*]}/{@code local[k]} (Spark inside this JVM,
 * nothing installed) or {@code submit} (the master {@code spark-submit} was given).
 */
final class SparkTraining {
  /** The --spark value that takes the master from spark-submit. */
  static final String SUBMIT = "submit";
  /**
   * JVM options of the CLI's relaunched JVM ({@link MemoryCaps}) for {@code --spark}: a heap for the training records
   * (MNIST: 60,000 x 784 floats, held by the driver and by Spark's local executors) and what Spark needs opened on
   * Java 17 (the jar's manifest carries the same for {@code java -jar}, but a relaunch with {@code -cp} reads no
   * manifest).
   */
  static final List<String> JVM_OPTIONS = jvmOptions();

  private SparkTraining() {
  }

  /** Refuses {@code --spark} with what it does not run: DP-MBCD, the certified softmax, a blank master. */
  static void checkSupported(CommandLine cmd, TrainCommand train) {
    if (train.spark == null) {
      return;
    }
    if (train.spark.isBlank()) {
      throw new CommandLine.ParameterException(cmd, "--spark needs a master: local[*], local[K] or submit");
    }
    if (train.algorithm == TrainCommand.Algorithm.DP_MBCD || CertifiedSoftmaxTraining.requested(train)) {
      throw new CommandLine.ParameterException(cmd, "--spark runs DP-SGD with --model mlp or cnn only (DP-MBCD and "
          + "the certified softmax regression train on one machine)");
    }
  }

  /** Whether {@code dp4j train} was given {@code --spark}. */
  static boolean requested(String[] args) {
    return Arrays.stream(args).anyMatch(a -> a.equals("--spark") || a.startsWith("--spark="));
  }

  /** Whether {@code dp4j train} runs under {@code spark-submit} ({@code --spark submit}). */
  static boolean submitted(String[] args) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--spark") && args[i + 1].equals(SUBMIT)) {
        return true;
      }
    }
    return Arrays.asList(args).contains("--spark=" + SUBMIT);
  }

  private static List<String> jvmOptions() {
    List<String> options = new ArrayList<>(List.of("-Xmx3g", "-D" + MemoryCaps.MAX_BYTES + "=1g",
        "-D" + MemoryCaps.MAX_PHYSICAL_BYTES + "=6g"));
    options.addAll(Arrays.asList(EmbeddedSpark.JAVA_17_OPTIONS.split(" ")));
    return List.copyOf(options);
  }

  static TrainingResult train(String master, MultiLayerNetwork net, IndexedData data, PrivacyLedger ledger,
      int epochs, Runnable onStep, Consumer<LedgerRow> onEpoch) {
    // Spark logs every task at INFO: warnings only on the console, unless the user chose a level (slf4j-simple).
    for (String logger : new String[] {"org.apache.spark", "org.sparkproject", "org.apache.hadoop"}) {
      String key = "org.slf4j.simpleLogger.log." + logger;
      if (System.getProperty(key) == null) {
        System.setProperty(key, "warn");
      }
    }
    try (JavaSparkContext sc = SUBMIT.equals(master) ? new JavaSparkContext(new SparkConf().setAppName("dp4j train"))
        : EmbeddedSpark.context(master, "dp4j train")) {
      JavaRDD<LabelledRecord> records = DriverRecords.distribute(sc, records(data), sc.defaultParallelism());
      try {
        SparkTrainingResult r = SparkDpSgdTrainer.builder(records, net).ledger(ledger).epochs(epochs)
            .onStep(onStep).onEpoch(onEpoch).build().train();
        return new TrainingResult(net, ledger, r.stopReason(), r.epochsCompleted(), r.steps());
      } finally {
        records.unpersist(false);
      }
    }
  }

  /** The training set as records, read in chunks. */
  private static List<LabelledRecord> records(IndexedData data) {
    List<LabelledRecord> records = new ArrayList<>(data.size());
    for (int from = 0; from < data.size(); from += 1000) {
      int[] idx = new int[Math.min(1000, data.size() - from)];
      for (int i = 0; i < idx.length; i++) {
        idx[i] = from + i;
      }
      DataSet rows = data.rows(idx);
      float[][] x = toFloats(rows.getFeatures());
      float[][] y = toFloats(rows.getLabels());
      for (int i = 0; i < x.length; i++) {
        records.add(new LabelledRecord(x[i], y[i]));
      }
    }
    return records;
  }

  private static float[][] toFloats(INDArray a) {
    return a.reshape(a.size(0), a.length() / a.size(0)).toFloatMatrix();
  }
}
