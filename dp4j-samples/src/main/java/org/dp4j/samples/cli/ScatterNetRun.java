package org.dp4j.samples.cli;

import static com.google.common.base.Preconditions.checkState;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistVariant;
import org.dp4j.features.GroupNormalisation;
import org.dp4j.features.ScatteringCache;
import org.dp4j.features.ScatteringTransform;
import org.dp4j.io.AtomicFiles;
import org.dp4j.samples.train.Accuracy;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.training.IndexedData;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.IUpdater;
import picocli.CommandLine;

/**
 * {@code dp4j train --features scatternet}: the data and the network of a DP-SGD run on ScatterNet features; the
 * training itself is {@link TrainCommand}'s. The features are a fixed function of each image (no training data
 * enter the filters) and each example is group-normalised by its own statistics, so the DP-SGD guarantee of the
 * run is unchanged: no privacy budget is spent on the features or their normalisation.
 *
 * <p>With {@code --validation N} the last N training images are held out: the run trains on the others and
 * {@link #testData} returns the held-out images, so settings can be compared without the test set. Not thread-safe:
 * {@link #trainData} must come before {@link #testData}.
 */
final class ScatterNetRun {
  private static final int DEFAULT_SCALES = 2;
  private static final int DEFAULT_ANGLES = 8;
  private static final int DEFAULT_GROUPS = 27;
  private static final int PHYSICAL_BATCH = 2048;
  private final CommandLine cmd;
  private final ScatteringTransform transform;
  private final GroupNormalisation norm;
  private final boolean cnn;
  private final Path cacheDir;
  private final int validation;
  private final MnistVariant variant;
  private final boolean mirrorTrain;
  private final boolean mirrorTest;
  private DataSet heldOut;

  private ScatterNetRun(CommandLine cmd, ScatteringTransform transform, GroupNormalisation norm, boolean cnn,
      Path cacheDir, int validation, MnistVariant variant, boolean mirrorTrain, boolean mirrorTest) {
    this.cmd = cmd;
    this.mirrorTrain = mirrorTrain;
    this.mirrorTest = mirrorTest;
    this.variant = variant;
    this.transform = transform;
    this.norm = norm;
    this.cnn = cnn;
    this.cacheDir = cacheDir;
    this.validation = validation;
  }

  /** The run {@code --features} asks for (validated against the rest of the command line), or null. */
  static ScatterNetRun requested(CommandLine cmd, FeatureOptions o, TrainCommand t) {
    if (!o.requested()) {
      if (o.anyGiven()) {
        throw new CommandLine.ParameterException(cmd, FeatureOptions.DEPENDENT + " need --features scatternet");
      }
      return null;
    }
    if (!o.features.equalsIgnoreCase("scatternet")) {
      throw new CommandLine.ParameterException(cmd, "--features must be scatternet, was '" + o.features + "'");
    }
    boolean cnn = switch (t.model.toLowerCase(Locale.ROOT)) {
      case "linear" -> false;
      case "cnn" -> true;
      default -> throw new CommandLine.ParameterException(cmd, "--features scatternet needs --model linear or cnn, "
          + "was '" + t.model + "'");
    };
    if (t.hidden != null || t.activation != null) {
      throw new CommandLine.ParameterException(cmd, "--hidden and --activation apply to --model mlp only");
    }
    if (t.sampler != null || t.l2 != null || t.featureClip != null) {
      throw new CommandLine.ParameterException(cmd, "--sampler, --l2 and --feature-clip apply to --model softmax "
          + "on pixels, not to --features");
    }
    if (t.resume != null) {
      throw new CommandLine.ParameterException(cmd, "--resume is not supported with --features yet; start again "
          + "(the features are cached, only the training is repeated)");
    }
    if (o.validation != null && (o.validation < 1 || t.dataOptions.trainSize != null)) {
      Integer trainSize = t.dataOptions.trainSize;
      throw new CommandLine.ParameterException(cmd, "--validation must be at least 1 and is not combined with "
          + "--train-size, was " + o.validation + (trainSize != null ? " with --train-size " + trainSize : ""));
    }
    int scales = o.scales != null ? o.scales : DEFAULT_SCALES;
    int angles = o.angles != null ? o.angles : DEFAULT_ANGLES;
    ScatteringTransform transform;
    try {
      transform = ScatteringTransform.of(28, scales, angles);
    } catch (InvalidSettingException e) {
      throw new CommandLine.ParameterException(cmd, "--scatter-scales/--scatter-angles: " + e.getMessage());
    }
    int groups = o.groups != null ? o.groups : DEFAULT_GROUPS;
    if (groups < 1 || transform.channels() % groups != 0) {
      throw new CommandLine.ParameterException(cmd, "--norm-groups must divide the " + transform.channels()
          + " channels, was " + groups);
    }
    GroupNormalisation norm = GroupNormalisation.of(groups, transform.channels(),
        transform.outputSize() * transform.outputSize());
    MnistVariant variant = t.dataOptions.variant(cmd);
    Path dir = o.cacheDir != null ? o.cacheDir
        : Path.of("").toAbsolutePath().resolve(".cache/features").resolve(variant.name().toLowerCase(Locale.ROOT)
            .replace('_', '-'));
    boolean mirrorTrain = mirror(cmd, "--augment", o.augment);
    boolean mirrorTest = mirror(cmd, "--test-augment", o.testAugment);
    if (mirrorTrain && cnn) {
      throw new CommandLine.ParameterException(cmd, "--augment mirror needs --model linear (the mean of the views' "
          + "gradients is computed on dense stacks only)");
    }
    if (mirrorTrain && t.spark != null) {
      throw new CommandLine.ParameterException(cmd, "--augment mirror is not supported with --spark yet (the "
          + "executors clip one row per example)");
    }
    return new ScatterNetRun(cmd, transform, norm, cnn, dir, o.validation != null ? o.validation : 0,
        variant, mirrorTrain, mirrorTest);
  }

  private static boolean mirror(CommandLine cmd, String option, String value) {
    if (value == null) {
      return false;
    }
    if (!value.equalsIgnoreCase("mirror")) {
      throw new CommandLine.ParameterException(cmd, option + " must be mirror, was '" + value + "'");
    }
    return true;
  }

  /**
   * Defaults per data set and model; all use momentum 0.9 and clip 0.1, as Tramèr &amp; Boneh 2021 (ScatterNet
   * models, their published settings), whose learning rate grows with the batch (lr = batch / 512 for the linear
   * model). MNIST linear: batch 2048, lr 4, 40 epochs, the best of the runs counted in the README ("ScatterNet
   * features"). Fashion-MNIST linear: their Fashion-MNIST settings (batch 8192, lr 16, 40 epochs, 27 groups).
   * CNN: their settings (MNIST batch 1024, lr 1, 22 epochs — where their noise multiplier 1.35 reaches ε = 3;
   * Fashion-MNIST batch 2048, lr 4, 40 epochs), not measured with dp4j (estimated 25–45 CPU-minutes a run here).
   */
  TrainDefaults defaults() {
    boolean fashion = variant == MnistVariant.FASHION_MNIST;
    if (cnn) {
      return fashion ? new TrainDefaults(40, 2048, 0.1, 4.0, 0.9, new int[0], "tanh")
          : new TrainDefaults(22, 1024, 0.1, 1.0, 0.9, new int[0], "tanh");
    }
    return fashion ? new TrainDefaults(40, 8192, 0.1, 16.0, 0.9, new int[0], "tanh")
        : new TrainDefaults(40, 2048, 0.1, 4.0, 0.9, new int[0], "tanh");
  }

  /**
   * Rows per physical micro-batch: logical batches above it are accumulated in pieces (same mechanism and
   * accounting), so batch 8192 of the 3969 features needs ~0.3 GB of per-example gradients, not 1.3 GB.
   */
  int physicalBatchSize() {
    return PHYSICAL_BATCH;
  }

  /**
   * The training records as normalised features (computed or read from the cache), without the last
   * {@code --validation} images, which are kept for {@link #testData}.
   */
  IndexedData trainData(LabelledImages train) {
    DataSet all = dataSet(train, "train", mirrorTrain || mirrorTest && validation > 0);
    if (validation == 0) {
      return IndexedData.of(mirrorTrain ? all : firstView(all));
    }
    int n = train.size();
    if (validation >= n) {
      throw new CommandLine.ParameterException(cmd, "--validation must be below the " + n + " training images, was "
          + validation);
    }
    heldOut = mirrorTest ? rows(all, n - validation, n) : firstView(rows(all, n - validation, n));
    cmd.getOut().printf(Locale.ROOT, "validation: training on the first %d training images; the last %d are held "
        + "out and every \"test accuracy\" below is measured on them (the test set is not evaluated)%n",
        n - validation, validation);
    DataSet training = rows(all, 0, n - validation);
    return IndexedData.of(mirrorTrain ? training : firstView(training));
  }

  /** The features of the image alone: the first {@code featureCount} columns (a view) of image-and-mirror rows. */
  private DataSet firstView(DataSet all) {
    if (all.getFeatures().size(1) == transform.featureCount()) {
      return all;
    }
    return new DataSet(all.getFeatures().get(NDArrayIndex.all(), NDArrayIndex.interval(0, transform.featureCount())),
        all.getLabels());
  }

  /** Rows per training example: 2 (the image and its mirror) with {@code --augment mirror}, else 1. */
  int trainViews() {
    return mirrorTrain ? 2 : 1;
  }

  /** Test accuracy; with {@code --test-augment mirror} the mean of the probabilities over the image and its mirror. */
  double accuracy(MultiLayerNetwork net, DataSet test) {
    if (!mirrorTest) {
      return Accuracy.of(net, test);
    }
    double both = Accuracy.ofViews(net, test, 2);
    DataSet imagesOnly = firstView(test);
    cmd.getOut().printf(Locale.ROOT, "  accuracy %.4f with the mirror at test time, %.4f without%n", both,
        Accuracy.of(net, imagesOnly));
    return both;
  }

  /** Rows [from, to) as views of {@code all}: no copy of the ~1 GB of features. */
  private static DataSet rows(DataSet all, int from, int to) {
    return new DataSet(all.getFeatures().get(NDArrayIndex.interval(from, to)),
        all.getLabels().get(NDArrayIndex.interval(from, to)));
  }

  /** The test records as normalised features, or the held-out training records with {@code --validation}. */
  DataSet testData(LabelledImages test) {
    if (validation > 0) {
      checkState(heldOut != null, "trainData must come before testData with --validation");
      return heldOut;
    }
    return dataSet(test, "test", mirrorTest);
  }

  MultiLayerConfiguration configuration(IUpdater base, long seed) {
    return cnn ? ModelZoo.scatterNetCnn(base, seed, transform.channels(), transform.outputSize())
        : ModelZoo.scatterNetLinear(base, seed, transform.featureCount());
  }

  /** Entries of the JSON report that describe the features. */
  Map<String, Object> report() {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("features", "scatternet");
    r.put("scatterScales", transform.scales());
    r.put("scatterAngles", transform.angles());
    r.put("featureCount", transform.featureCount());
    r.put("featureNormalisation", "group normalisation per example, " + norm.groups() + " groups (no privacy cost)");
    r.put("augmentation", mirrorTrain ? "augmentation multiplicity: each example's gradient is the mean over the "
        + "image and its left-right mirror, clipped once (sensitivity C, no privacy cost)" : "none");
    r.put("testAugmentation", mirrorTest ? "prediction = highest mean probability over the test image and its "
        + "mirror (post-processing, no privacy cost)" : "none");
    r.put("evaluatedOn", validation == 0 ? "test set" : "validation: the last " + validation
        + " training images, held out of training (testAccuracy is measured on them)");
    return r;
  }

  /**
   * The normalised features of {@code images} ([n, d]) or, {@code withMirror}, of each image and its left-right
   * mirror side by side ([n, 2d]), with one-hot labels.
   */
  private DataSet dataSet(LabelledImages images, String split, boolean withMirror) {
    if (!withMirror) {
      return new DataSet(features(images, split, ""), oneHot(images));
    }
    // Filled one view at a time, so that at most one view's features exist besides the result.
    int d = transform.featureCount();
    INDArray both = Nd4j.create(DataType.FLOAT, images.size(), 2L * d);
    both.get(NDArrayIndex.all(), NDArrayIndex.interval(0, d)).assign(features(images, split, ""));
    both.get(NDArrayIndex.all(), NDArrayIndex.interval(d, 2 * d))
        .assign(features(images.mirrored(), split, "-mirrored"));
    return new DataSet(both, oneHot(images));
  }

  private INDArray features(LabelledImages images, String split, String suffix) {
    PrintWriter out = cmd.getOut();
    Path file = cacheDir.resolve(String.format(Locale.ROOT, "%s-J%d-L%d%s.scat", split, transform.scales(),
        transform.angles(), suffix));
    long start = System.nanoTime();
    ScatteringCache.Result r;
    try {
      r = ScatteringCache.features(file, images, transform, done -> {
        if (done % 10_240 == 0) {
          cmd.getErr().printf(Locale.ROOT, "  ... scattering %d/%d %s images%n", done, images.size(), split);
          cmd.getErr().flush();
        }
      });
    } catch (IOException e) {
      throw new CommandLine.ParameterException(cmd, "--feature-cache: cannot write " + file + ": "
          + AtomicFiles.reason(e));
    }
    INDArray features = norm.normaliseInPlace(r.features());
    out.printf(Locale.ROOT, "ScatterNet J=%d L=%d features of %d %s images%s (%d per image): %s (%.1f s); group "
            + "normalisation per example, %d groups (no privacy cost)%n", transform.scales(), transform.angles(),
        images.size(), split, suffix.isEmpty() ? "" : ", mirrored", transform.featureCount(), r.origin(),
        (System.nanoTime() - start) / 1e9, norm.groups());
    out.flush();
    return features;
  }

  private static INDArray oneHot(LabelledImages images) {
    INDArray y = Nd4j.create(DataType.FLOAT, images.size(), images.classes());
    for (int i = 0; i < images.size(); i++) {
      y.putScalar(i, images.label(i), 1.0);
    }
    return y;
  }
}
