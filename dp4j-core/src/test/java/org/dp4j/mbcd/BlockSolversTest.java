package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/** The lifted-network block solvers against docs/errata.md#dp-mbcd-lifted-updates and brute-force minimisation. */
class BlockSolversTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  @Test
  void uUpdateMatchesDigestTable() {
    // docs/errata.md#dp-mbcd-lifted-updates: (a, b, u)
    double[][] rows = {{1, -0.5, -0.5}, {1, -0.3, 0.35}, {1, -2, -2}, {1, 0.5, 0.75},
        {-1, 0.5, 0}, {-1, 2, 0.5}, {0.5, 0.2, 0.35}, {0, -1, -1}, {0, 1, 0.5}};
    for (double[] r : rows) {
      assertThat(PreActivationUpdate.solve(r[0], r[1])).as("a=%s b=%s", r[0], r[1])
          .isCloseTo(r[2], within(1e-15));
    }
    INDArray a = Nd4j.createFromArray(1.0, 1.0, -1.0, 0.5).reshape(2, 2);
    INDArray b = Nd4j.createFromArray(-0.5, -0.3, 2.0, 0.2).reshape(2, 2);
    assertThat(PreActivationUpdate.solve(a, b).reshape(4).toDoubleVector())
        .containsExactly(new double[] {-0.5, 0.35, 0.5, 0.35}, within(1e-15));
  }

  @Test
  void uUpdateIsTheGlobalMinimiserByGridSearch() {
    Random rnd = new Random(5);
    for (int t = 0; t < 300; t++) {
      double a = 3 * rnd.nextGaussian();
      double b = 3 * rnd.nextGaussian();
      double best = Double.POSITIVE_INFINITY;
      for (double u = -15; u <= 15; u += 1e-4) {
        best = Math.min(best, phi(a, b, u));
      }
      assertThat(phi(a, b, PreActivationUpdate.solve(a, b))).as("a=%s b=%s", a, b)
          .isLessThanOrEqualTo(best + 1e-12);
    }
  }

  private static double phi(double a, double b, double u) {
    double r = a - Math.max(0, u);
    return r * r + (u - b) * (u - b);
  }

  @Test
  void uUpdateOfALargeBatchIsComputedInRowChunksWithTheSameResult() {
    // 2,500 × 1,000 spans three row chunks of 2^20 entries
    INDArray a = Nd4j.randn(new long[] {2500, 1000});
    INDArray b = Nd4j.randn(new long[] {2500, 1000});
    INDArray u = PreActivationUpdate.solve(a, b);
    for (long[] ij : new long[][] {{0, 0}, {1047, 999}, {1048, 0}, {2096, 500}, {2499, 999}}) {
      assertThat(u.getDouble(ij)).isEqualTo(PreActivationUpdate.solve(a.getDouble(ij), b.getDouble(ij)));
    }
    assertThat(u.sub(b).amaxNumber().doubleValue()).isPositive();
  }

  @Test
  void hiddenXUpdateAndClipMatchDigest() {
    // docs/errata.md#dp-mbcd-lifted-updates: W = [[1,0],[0,2]] (so A = Wᵀ), u = [1,1], σ(u_prev) = [0.5,0] → [0.75, 0.4]
    LinearBlock w = block(new double[][] {{1, 0}, {0, 2}}, new double[] {0, 0});
    INDArray x = PostActivationUpdate.hidden(w, row(1, 1), row(0.5, 0));
    assertThat(x.toDoubleVector()).containsExactly(new double[] {0.75, 0.4}, within(1e-14));
    RowNormClip.clipInPlace(x, 0.5);
    assertThat(x.toDoubleVector())
        .containsExactly(new double[] {0.4411764706, 0.2352941176}, within(1e-10));
  }

  @Test
  void outputXUpdateMatchesDigest() {
    // docs/errata.md#dp-mbcd-lifted-updates: W_D = [[1,1],[0,1]], y = [1,0], σ(u_{D-1}) = [0.2,0.4], γ = 1 → [0.44, 0.32]
    LinearBlock w = block(new double[][] {{1, 1}, {0, 1}}, new double[] {0, 0});
    INDArray x = PostActivationUpdate.output(w, row(1, 0), row(0.2, 0.4), 1.0);
    assertThat(x.toDoubleVector()).containsExactly(new double[] {0.44, 0.32}, within(1e-14));
  }

  @Test
  void xUpdatesMinimiseTheirObjectivesForEveryExampleOfABatch() {
    Random rnd = new Random(9);
    LinearBlock w = randomBlock(rnd, 4, 3);
    INDArray u = Nd4j.randn(new long[] {5, 3});
    INDArray s = Nd4j.randn(new long[] {5, 4});
    INDArray y = Nd4j.randn(new long[] {5, 3});
    double gamma = 0.7;
    INDArray xh = PostActivationUpdate.hidden(w, u, s);
    INDArray xo = PostActivationUpdate.output(w, y, s, gamma);
    for (int i = 0; i < 5; i++) {
      int e = i;
      // hidden: ‖x − s‖² + ‖u − (xA + c)‖²; output: ½‖xA + c − y‖² + (γ/2)‖x − s‖²
      checkLocalMinimum(rnd, xh.getRow(e).toDoubleVector(), z -> sq(z, s.getRow(e))
          + sq(w.apply(Nd4j.createFromArray(z).reshape(1, 4)), u.getRow(e)));
      checkLocalMinimum(rnd, xo.getRow(e).toDoubleVector(), z -> 0.5 * sq(
          w.apply(Nd4j.createFromArray(z).reshape(1, 4)), y.getRow(e)) + 0.5 * gamma * sq(z, s.getRow(e)));
    }
  }

  /** A convex objective is minimal at x iff no nearby point is lower: probe 200 random directions. */
  private static void checkLocalMinimum(Random rnd, double[] x,
      java.util.function.ToDoubleFunction<double[]> f) {
    double fx = f.applyAsDouble(x);
    for (int t = 0; t < 200; t++) {
      double[] z = x.clone();
      for (int k = 0; k < z.length; k++) {
        z[k] += 1e-3 * rnd.nextGaussian();
      }
      assertThat(f.applyAsDouble(z)).isGreaterThanOrEqualTo(fx - 1e-13);
    }
  }

  private static double sq(double[] a, INDArray b) {
    return sq(Nd4j.createFromArray(a).reshape(b.shape()), b);
  }

  private static double sq(INDArray a, INDArray b) {
    INDArray d = a.reshape(b.shape()).sub(b);
    return d.mul(d).sumNumber().doubleValue();
  }

  @Test
  void aForwardPassIsAFixedPointOfTheHiddenXAndUUpdates() {
    // docs/threat-models.md#dp-mbcd-auxiliaries: with u_d = W_d x_d + c_d and x_d = σ(u_{d-1}), Eq. 11 returns x_d and Eq. 10
    // returns u_d (derived by hand, independent of the solvers' code)
    Random rnd = new Random(21);
    LinearBlock w = randomBlock(rnd, 6, 5);
    INDArray uPrev = Nd4j.randn(new long[] {7, 6});
    INDArray x = org.nd4j.linalg.ops.transforms.Transforms.relu(uPrev, true);
    INDArray u = w.apply(x);
    INDArray xNext = org.nd4j.linalg.ops.transforms.Transforms.relu(u, true);
    assertThat(PostActivationUpdate.hidden(w, u, x).reshape(42).toDoubleVector())
        .containsExactly(x.reshape(42).toDoubleVector(), within(1e-12));
    assertThat(PreActivationUpdate.solve(xNext, w.apply(x)).reshape(35).toDoubleVector())
        .containsExactly(u.reshape(35).toDoubleVector(), within(1e-15));
  }

  @Test
  void wGradientMatchesDigestWithCorrectedSign() {
    // docs/errata.md#dp-mbcd-lifted-updates: W = [[0.5,-0.5]], x = [0.6,0.8], u = [1]: ∇_W f = [[-0.66, -0.88]];
    // with a zero bias, ∂f/∂c = Wx - u = -1.1, so ‖g‖ = 1.1·sqrt(‖x‖² + 1) = 1.1·√2
    LinearBlock w = block(new double[][] {{0.5, -0.5}}, new double[] {0});
    ClippedBlockGradient g = ClippedBlockGradient.compute(w, row(0.6, 0.8), row(1), 1.0, 100.0);
    assertThat(g.weightGradient().reshape(2).toDoubleVector())
        .containsExactly(new double[] {-0.66, -0.88}, within(1e-15));
    assertThat(g.biasGradient().getDouble(0)).isCloseTo(-1.1, within(1e-15));
    assertThat(g.unclippedNorms().getDouble(0)).isCloseTo(1.1 * Math.sqrt(2), within(1e-15));
    ClippedBlockGradient c = ClippedBlockGradient.compute(w, row(0.6, 0.8), row(1), 1.0, 1.0);
    assertThat(c.weightGradient().getDouble(0)).isCloseTo(-0.66 / (1.1 * Math.sqrt(2)), within(1e-15));
  }

  @Test
  void clippedMeanEqualsMeanOfFiniteDifferenceGradientsEachClippedToC() {
    Random rnd = new Random(13);
    int b = 6;
    LinearBlock w = randomBlock(rnd, 3, 2);
    INDArray x = Nd4j.randn(new long[] {b, 3}).muli(2);
    INDArray t = Nd4j.randn(new long[] {b, 2});
    double gamma = 1.3;
    INDArray norms = ClippedBlockGradient.compute(w, x, t, gamma, 1e9).unclippedNorms();
    double clip = norms.medianNumber().doubleValue();
    ClippedBlockGradient g = ClippedBlockGradient.compute(w, x, t, gamma, clip);
    double[] theta = w.flat().toDoubleVector();
    double[] expectedMean = new double[theta.length];
    int clippedCount = 0;
    for (int i = 0; i < b; i++) {
      double[] gi = finiteDifferenceGradient(w, theta, x.getRow(i), t.getRow(i), gamma);
      double norm = Math.sqrt(dot(gi, gi));
      assertThat(g.unclippedNorms().getDouble(i)).isCloseTo(norm, within(1e-6));
      double s = Math.min(1, clip / norm);
      clippedCount += s < 1 ? 1 : 0;
      assertThat(norm * s).isLessThanOrEqualTo(clip + 1e-12);
      for (int k = 0; k < gi.length; k++) {
        expectedMean[k] += s * gi[k] / b;
      }
    }
    assertThat(clippedCount).as("the test must exercise clipping").isBetween(1, b - 1);
    double[] actual = org.nd4j.linalg.factory.Nd4j.toFlattened('f', g.weightGradient(),
        g.biasGradient()).toDoubleVector();
    assertThat(actual).containsExactly(expectedMean, within(1e-6));
  }

  private static double[] finiteDifferenceGradient(LinearBlock w, double[] theta, INDArray x,
      INDArray t, double gamma) {
    LinearBlock probe = LinearBlock.fromFlat(Nd4j.createFromArray(theta), w.nIn(), w.nOut());
    double[] g = new double[theta.length];
    double h = 1e-6;
    for (int k = 0; k < theta.length; k++) {
      double[] p = theta.clone();
      double[] m = theta.clone();
      p[k] += h;
      m[k] -= h;
      probe.setFlat(Nd4j.createFromArray(p));
      double fp = 0.5 * gamma * sq(probe.apply(x.reshape(1, x.length())), t);
      probe.setFlat(Nd4j.createFromArray(m));
      double fm = 0.5 * gamma * sq(probe.apply(x.reshape(1, x.length())), t);
      g[k] = (fp - fm) / (2 * h);
    }
    return g;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  @Test
  void rowClipLeavesShortRowsAndScalesLongOnes() {
    INDArray x = Nd4j.createFromArray(new double[][] {{3, 4}, {0.3, 0.4}, {0, 0}});
    RowNormClip.clipInPlace(x, 1.0);
    assertThat(x.reshape(6).toDoubleVector())
        .containsExactly(new double[] {0.6, 0.8, 0.3, 0.4, 0, 0}, within(1e-15));
  }

  @Test
  void proximalPointStepMinimisesTheProximalObjective() {
    // docs/errata.md#dp-mbcd-lifted-updates W-block with a bias: W = [[0.5,-0.5]], c = 0, x = [0.6,0.8], u = [1], η = 0.1. Reference:
    // scipy BFGS minimisation of ½(u − Wx − c)² + (‖W − W0‖² + c²)/(2η) → W = [0.555, −0.4266667], c = 0.0916667
    // (without the bias the same minimisation gives the independently computed [[0.56, −0.42]])
    LinearBlock w = block(new double[][] {{0.5, -0.5}}, new double[] {0});
    ProximalPointStep.apply(w, row(0.6, 0.8), row(1), 1.0, 0.1, 0.0, 0.01,
        org.dp4j.prox.ProximalOperator.none(), (target, std) -> { });
    assertThat(w.weights().reshape(2).toDoubleVector())
        .containsExactly(new double[] {0.555, -0.4266666667}, within(1e-7));
    assertThat(w.bias().getDouble(0)).isCloseTo(0.0916666667, within(1e-7));
  }

  @Test
  void softmaxOutputAuxiliaryMatchesScipyAndMinimisesItsObjectiveForEveryExample() {
    // reference: scipy BFGS (gtol 1e-12) on CE(x·A + c, y) + (γ/2)‖x − s‖², A = [[1,−.5,.2],[.3,.8,−1]],
    // c = [.1, 0, −.2], y = e_3, s = [.5, −.3], γ = .7  →  x = [0.2836167, −1.05164538]
    LinearBlock out = block(new double[][] {{1, 0.3}, {-0.5, 0.8}, {0.2, -1}}, new double[] {0.1, 0, -0.2});
    INDArray x = SoftmaxProx.auxiliary(out, row(0, 0, 1), row(0.5, -0.3), 0.7);
    assertThat(x.reshape(2).toDoubleVector()).containsExactly(new double[] {0.2836167, -1.05164538}, within(1e-6));
    Random rnd = new Random(21);
    LinearBlock w = randomBlock(rnd, 4, 3);
    INDArray s = Nd4j.randn(new long[] {6, 4});
    INDArray y = Nd4j.zeros(6, 3);
    for (int i = 0; i < 6; i++) {
      y.putScalar(i, i % 3, 1.0);
    }
    INDArray xs = SoftmaxProx.auxiliary(w, y, s, 0.4);
    for (int i = 0; i < 6; i++) {
      int e = i;
      checkLocalMinimum(rnd, xs.getRow(e).toDoubleVector(), z -> crossEntropy(
          w.apply(Nd4j.createFromArray(z).reshape(1, 4)), y.getRow(e)) + 0.2 * sq(z, s.getRow(e)));
    }
  }

  @Test
  void softmaxProximalPointStepMatchesScipy() {
    // reference: scipy BFGS on mean_i CE(x̃_i·Θ', y_i) + ‖Θ' − Θ‖²/(2η), η = 0.5, Θ = [A; c] as above,
    // X = [[.6,.8],[.1,−.4],[−.5,.2]], Y = I_3 (no noise)
    LinearBlock w = block(new double[][] {{1, 0.3}, {-0.5, 0.8}, {0.2, -1}}, new double[] {0.1, 0, -0.2});
    INDArray x = Nd4j.createFromArray(new double[][] {{0.6, 0.8}, {0.1, -0.4}, {-0.5, 0.2}});
    SoftmaxProx.blockStep(w, x, Nd4j.eye(3).castTo(DataType.DOUBLE), 0.5, 0.0, 0.01,
        org.dp4j.prox.ProximalOperator.none(), (target, std) -> { });
    assertThat(w.weights().reshape(6).toDoubleVector()).containsExactly(new double[] {
        1.05363427, -0.47350128, 0.11986702, 0.36658279, 0.69278137, -0.95936416}, within(1e-6));
    assertThat(w.bias().reshape(3).toDoubleVector())
        .containsExactly(new double[] {0.06747993, -0.00831828, -0.15916165}, within(1e-6));
  }

  @Test
  void crossEntropyGradientsAreBoundedByCAndTheirStepIsNonExpansiveUnlikeANaiveClip() {
    // ‖p − y‖ ≤ √2, so weighting example i by s_i = min(1, C/(√2‖x̃_i‖)) bounds ‖g_i‖ by C and keeps a convex,
    // ½(ρ² + 1)-smooth objective: θ ↦ θ − η·ḡ(θ) is 1-Lipschitz for η = 2/β. Clipping g_i at its own norm is not.
    Random rnd = new Random(23);
    double rho = 1.0;
    double eta = 2.0 / (0.5 * (rho * rho + 1));
    double worst = 0;
    double worstNaive = 0;
    for (int trial = 0; trial < 400; trial++) {
      LinearBlock w = randomBlock(rnd, 3, 3);
      INDArray x = Nd4j.randn(new long[] {1, 3});
      RowNormClip.clipInPlace(x, rho);
      INDArray y = Nd4j.zeros(1, 3).putScalar(0, trial % 3, 1.0);
      INDArray theta = w.flat();
      INDArray other = theta.add(Nd4j.randn(new long[] {1, theta.length()}).muli(1e-5));
      double full = ClippedBlockGradient.crossEntropy(w, x, y, 1e9).flat().norm2Number().doubleValue();
      double clip = full * (0.3 + 0.6 * rnd.nextDouble());
      worst = Math.max(worst, lipschitzRatio(w, theta, other, eta,
          v -> ClippedBlockGradient.crossEntropy(w, x, y, clip).flat()));
      worstNaive = Math.max(worstNaive, lipschitzRatio(w, theta, other, eta,
          v -> ClippedBlockGradient.fromResiduals(x, Transforms.softmax(w.apply(x), false).subi(y), true, clip).flat()));
      INDArray g = ClippedBlockGradient.crossEntropy(w, x, y, clip).flat();
      assertThat(g.norm2Number().doubleValue()).isLessThanOrEqualTo(clip * (1 + 1e-12));
    }
    assertThat(worst).isLessThanOrEqualTo(1 + 1e-6);
    assertThat(worstNaive).as("the naive clip expands").isGreaterThan(1.001);
  }

  private static double lipschitzRatio(LinearBlock w, INDArray theta, INDArray other, double eta,
      java.util.function.Function<LinearBlock, INDArray> gradient) {
    w.setFlat(theta);
    INDArray f1 = theta.sub(gradient.apply(w).mul(eta));
    w.setFlat(other);
    INDArray f2 = other.sub(gradient.apply(w).mul(eta));
    w.setFlat(theta);
    return f1.distance2(f2) / theta.distance2(other);
  }

  private static double crossEntropy(INDArray logits, INDArray oneHot) {
    double[] l = logits.reshape(logits.length()).toDoubleVector();
    double max = java.util.Arrays.stream(l).max().orElseThrow();
    double sum = 0;
    for (double v : l) {
      sum += Math.exp(v - max);
    }
    return max + Math.log(sum) - logits.reshape(oneHot.shape()).mul(oneHot).sumNumber().doubleValue();
  }

  /** A block whose paper-convention matrix is W [out, in]; DL4J's A = Wᵀ. */
  static LinearBlock block(double[][] w, double[] bias) {
    int out = w.length;
    int in = w[0].length;
    INDArray a = Nd4j.createFromArray(w).transpose();
    INDArray flat = Nd4j.toFlattened('f', a, Nd4j.createFromArray(bias).reshape(1, out));
    return LinearBlock.fromFlat(flat, in, out);
  }

  static LinearBlock randomBlock(Random rnd, int in, int out) {
    double[] p = new double[in * out + out];
    for (int i = 0; i < p.length; i++) {
      p[i] = rnd.nextGaussian();
    }
    return LinearBlock.fromFlat(Nd4j.createFromArray(p), in, out);
  }

  private static INDArray row(double... v) {
    return Nd4j.createFromArray(v).reshape(1, v.length);
  }
}
