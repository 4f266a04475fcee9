package org.dp4j.data;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A seeded synthetic classification set in the style of scikit-learn's {@code make_classification}
 * (itself adapted from Guyon's 2003 MADELON generator), for Chen &amp; Liu's "Madelon" experiment
 * (App. D.2: 6000 instances, 20 features, 5 classes; docs/accountants.md#dp-mbcd reads it as such synthetic data).
 *
 * <p>Generation, with one {@link java.util.Random} seeded by {@link Builder#seed(long)} (synthetic data,
 * generated not downloaded; the seed is documentation, not a secret):
 * <ol>
 *   <li>classes × clustersPerClass distinct random vertices of the hypercube {−s, +s}^informative
 *       (s = classSeparation) are the cluster centres; cluster q belongs to class q mod classes;</li>
 *   <li>the n examples are split as evenly as possible over the clusters (the first n mod clusters get one
 *       more); in cluster q, informative features are z·A_q + centre_q with z ~ N(0, I) and A_q uniform on
 *       [−1, 1]^{informative×informative} (a random covariance per cluster);</li>
 *   <li>redundant features are the informative ones times one matrix B uniform on [−1, 1]; the remaining
 *       (noise) features are N(0, 1), independent of the class;</li>
 *   <li>each label is, with probability labelNoise, replaced by a uniformly random class (which may be the
 *       original one, as in scikit-learn's {@code flip_y});</li>
 *   <li>examples are shuffled, so any prefix is a random split. Columns are <b>not</b> shuffled: informative
 *       features come first, then redundant, then noise.</li>
 * </ol>
 *
 * <pre>{@code
 * LabelledVectors data = SyntheticClassification.madelonLike().seed(2003).build().generate();
 * LabelledVectors custom = SyntheticClassification.builder().samples(1000).features(10).informative(4)
 *     .redundant(2).classes(3).clustersPerClass(1).classSeparation(2.0).labelNoise(0.0).build().generate();
 * }</pre>
 */
public final class SyntheticClassification {
  /** The default seed of {@link #madelonLike()}. */
  public static final long MADELON_SEED = 2003;

  private final int samples;
  private final int features;
  private final int informative;
  private final int redundant;
  private final int classes;
  private final int clustersPerClass;
  private final double classSeparation;
  private final double labelNoise;
  private final long seed;

  private SyntheticClassification(Builder b) {
    this.samples = b.samples;
    this.features = b.features;
    this.informative = b.informative;
    this.redundant = b.redundant;
    this.classes = b.classes;
    this.clustersPerClass = b.clustersPerClass;
    this.classSeparation = b.classSeparation;
    this.labelNoise = b.labelNoise;
    this.seed = b.seed;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Chen &amp; Liu's "Madelon" shape (6000 × 20, 5 classes) with our choice of the unstated rest: 10
   * informative, 5 redundant, 5 noise features, 2 clusters per class, separation 1, 1% label noise
   * ({@code make_classification}'s defaults where it has them), seed {@link #MADELON_SEED}.
   */
  public static Builder madelonLike() {
    return builder().samples(6000).features(20).informative(10).redundant(5).classes(5).clustersPerClass(2)
        .classSeparation(1.0).labelNoise(0.01).seed(MADELON_SEED);
  }

  /** The examples, shuffled, labels in [0, classes). Deterministic in the seed. */
  public LabelledVectors generate() {
    Random rnd = new Random(seed);
    int clusters = classes * clustersPerClass;
    List<double[]> centres = centres(rnd, clusters);
    double[] x = new double[samples * features];
    int[] y = new int[samples];
    int row = 0;
    for (int q = 0; q < clusters; q++) {
      int size = samples / clusters + (q < samples % clusters ? 1 : 0);
      double[][] a = uniformMatrix(rnd, informative, informative);
      for (int i = 0; i < size; i++, row++) {
        double[] z = new double[informative];
        for (int k = 0; k < informative; k++) {
          z[k] = rnd.nextGaussian();
        }
        for (int c = 0; c < informative; c++) {
          double v = centres.get(q)[c];
          for (int k = 0; k < informative; k++) {
            v += z[k] * a[k][c];
          }
          x[row * features + c] = v;
        }
        y[row] = q % classes;
      }
    }
    double[][] b = uniformMatrix(rnd, informative, redundant);
    for (int i = 0; i < samples; i++) {
      for (int r = 0; r < redundant; r++) {
        double v = 0;
        for (int k = 0; k < informative; k++) {
          v += x[i * features + k] * b[k][r];
        }
        x[i * features + informative + r] = v;
      }
      for (int c = informative + redundant; c < features; c++) {
        x[i * features + c] = rnd.nextGaussian();
      }
    }
    for (int i = 0; i < samples; i++) {
      if (rnd.nextDouble() < labelNoise) {
        y[i] = rnd.nextInt(classes);
      }
    }
    shuffleRows(rnd, x, y);
    return new LabelledVectors(x, y, features, classes);
  }

  /** Distinct random vertices of {−s, +s}^informative. */
  private List<double[]> centres(Random rnd, int clusters) {
    Set<List<Boolean>> seen = new HashSet<>();
    List<double[]> centres = new ArrayList<>();
    while (centres.size() < clusters) {
      List<Boolean> bits = new ArrayList<>();
      double[] c = new double[informative];
      for (int k = 0; k < informative; k++) {
        boolean up = rnd.nextBoolean();
        bits.add(up);
        c[k] = up ? classSeparation : -classSeparation;
      }
      if (seen.add(bits)) {
        centres.add(c);
      }
    }
    return centres;
  }

  private static double[][] uniformMatrix(Random rnd, int rows, int cols) {
    double[][] m = new double[rows][cols];
    for (double[] r : m) {
      for (int c = 0; c < cols; c++) {
        r[c] = 2 * rnd.nextDouble() - 1;
      }
    }
    return m;
  }

  /** Fisher–Yates on rows of x (row-major, {@code y.length} rows) and y together. */
  private void shuffleRows(Random rnd, double[] x, int[] y) {
    double[] tmp = new double[features];
    for (int i = y.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      System.arraycopy(x, i * features, tmp, 0, features);
      System.arraycopy(x, j * features, x, i * features, features);
      System.arraycopy(tmp, 0, x, j * features, features);
      int t = y[i];
      y[i] = y[j];
      y[j] = t;
    }
  }

  /** Builder; samples, features, informative and classes are required, the rest default as noted. */
  public static final class Builder {
    private int samples;
    private int features;
    private int informative;
    private int redundant;
    private int classes;
    private int clustersPerClass = 2;
    private double classSeparation = 1.0;
    private double labelNoise = 0.01;
    private long seed = MADELON_SEED;

    private Builder() {}

    public Builder samples(int n) {
      this.samples = n;
      return this;
    }

    /** Total features d = informative + redundant + noise. */
    public Builder features(int d) {
      this.features = d;
      return this;
    }

    public Builder informative(int count) {
      this.informative = count;
      return this;
    }

    /** Linear combinations of the informative features (default 0). */
    public Builder redundant(int count) {
      this.redundant = count;
      return this;
    }

    public Builder classes(int count) {
      this.classes = count;
      return this;
    }

    /** Default 2, as in scikit-learn. */
    public Builder clustersPerClass(int count) {
      this.clustersPerClass = count;
      return this;
    }

    /** Half the hypercube's side; larger separates classes more (default 1). */
    public Builder classSeparation(double s) {
      this.classSeparation = s;
      return this;
    }

    /** Probability that a label is redrawn uniformly (default 0.01). */
    public Builder labelNoise(double p) {
      this.labelNoise = p;
      return this;
    }

    /** Seed of the generator (default {@link #MADELON_SEED}). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public SyntheticClassification build() {
      checkArgument(classes >= 2, "classes must be >= 2, was %s", classes);
      checkArgument(clustersPerClass >= 1, "clustersPerClass must be >= 1, was %s", clustersPerClass);
      checkArgument(informative >= 1, "informative must be >= 1, was %s", informative);
      checkArgument(redundant >= 0, "redundant must be >= 0, was %s", redundant);
      checkArgument(informative + redundant <= features,
          "informative + redundant must be <= features = %s, were %s + %s", features, informative, redundant);
      int clusters = classes * clustersPerClass;
      checkArgument(informative >= 31 || clusters <= (1 << informative),
          "classes * clustersPerClass = %s must be <= 2^informative = %s (distinct hypercube vertices)",
          clusters, informative < 31 ? 1 << informative : Integer.MAX_VALUE);
      checkArgument(samples >= clusters, "samples must be >= classes * clustersPerClass = %s, was %s", clusters,
          samples);
      checkArgument((long) samples * features <= Integer.MAX_VALUE, "samples * features too large: %s * %s",
          samples, features);
      checkArgument(classSeparation > 0 && Double.isFinite(classSeparation),
          "classSeparation must be finite and > 0, was %s", classSeparation);
      checkArgument(labelNoise >= 0 && labelNoise <= 1, "labelNoise must be in [0, 1], was %s", labelNoise);
      return new SyntheticClassification(this);
    }
  }
}
