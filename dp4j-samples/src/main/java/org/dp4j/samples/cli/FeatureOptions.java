package org.dp4j.samples.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code dp4j train} options of fixed feature extractors (ScatterNet). */
final class FeatureOptions {
  /** The options that only apply to {@code --features}, for refusals. */
  static final String DEPENDENT = "--scatter-scales, --scatter-angles, --norm-groups, --feature-cache, --validation, "
      + "--augment and --test-augment";

  @Option(names = "--features", paramLabel = "scatternet",
      description = "Train on fixed features instead of pixels: scatternet = the order-2 scattering transform "
          + "(Oyallon & Mallat 2015; Kymatio's Scattering2D, as in Tramer & Boneh 2021), computed once per image "
          + "and cached, each example group-normalised by its own statistics (no privacy cost). With it --model is "
          + "linear (softmax regression) or cnn (Tramer & Boneh's ScatterNet CNN).")
  String features;

  @Option(names = "--scatter-scales", paramLabel = "J", description = "--features scatternet: scales J (default 2).")
  Integer scales;

  @Option(names = "--scatter-angles", paramLabel = "L", description = "--features scatternet: angles L (default 8).")
  Integer angles;

  @Option(names = "--norm-groups", paramLabel = "G",
      description = "--features scatternet: groups of the per-example group normalisation (default 27; must divide "
          + "the channel count, 81 for J = 2, L = 8).")
  Integer groups;

  @Option(names = "--feature-cache", paramLabel = "DIR",
      description = "--features scatternet: folder of the cached features (default .cache/features/<dataset>).")
  Path cacheDir;

  @Option(names = "--validation", paramLabel = "N",
      description = "--features scatternet: hold out the last N training images as a validation set: train on the "
          + "others and report accuracy on the N held out instead of the test set (to choose settings without "
          + "looking at the test set; the guarantee then covers the training images used).")
  Integer validation;

  @Option(names = "--augment", paramLabel = "mirror",
      description = "--features scatternet, --model linear: augmentation multiplicity (De et al. 2022) with the "
          + "left-right mirror: each training example's gradient is the mean over the image and its mirror, "
          + "clipped once, so the guarantee is unchanged (the mirror is computed from that example alone). "
          + "Default: off.")
  String augment;

  @Option(names = "--test-augment", paramLabel = "mirror",
      description = "--features scatternet: predict the class with the highest mean probability over the test "
          + "image and its left-right mirror (post-processing of the released model: no privacy cost). "
          + "Default: off.")
  String testAugment;

  boolean requested() {
    return features != null;
  }

  boolean anyGiven() {
    return features != null || scales != null || angles != null || groups != null || cacheDir != null
        || validation != null || augment != null || testAugment != null;
  }
}
