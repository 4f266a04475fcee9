package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.SingularValueDecomposition;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The convolutional lifted block: im2col map against the independently computed corrected Toeplitz example and a brute-force
 * convolution, the CG x-update against a dense LU solve (commons-math3), per-example clipped gradients against
 * brute-force loops, and the step-coordinate curvature bound (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-lifted-updates, #dp-mbcd-lipschitz-f, #dp-mbcd-convolution).
 */
class ConvolutionBlockTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** A conv block with random weights/bias over [c, h, w] maps, kernel k, stride s, explicit padding p. */
  static ConvolutionBlock conv(Random rnd, int c, int h, int w, int out, int k, int s, int p,
      ConvolutionMode mode) {
    ConvolutionGeometry g = ConvolutionGeometry.of(c, h, w, new int[] {k, k}, new int[] {s, s},
        new int[] {p, p}, mode);
    double[] params = new double[out * (c * k * k + 1)];
    for (int i = 0; i < params.length; i++) {
      params[i] = rnd.nextGaussian();
    }
    return ConvolutionBlock.fromLayerParameters(Nd4j.createFromArray(params), g, out);
  }

  @Test
  void convolutionMatrixIsTheDigestsCorrectedToeplitzMatrix() {
    // Chen & Liu 2025; docs/errata.md#dp-mbcd-lifted-updates: 3×3 input, 2×2 kernel [[w11, w12], [w21, w22]] = [[1, 2], [3, 4]], stride 1
    ConvolutionGeometry g = ConvolutionGeometry.of(1, 3, 3, new int[] {2, 2}, new int[] {1, 1},
        new int[] {0, 0}, ConvolutionMode.Truncate);
    ConvolutionBlock b = ConvolutionBlock.fromLayerParameters(
        Nd4j.createFromArray(0.0, 1, 2, 3, 4), g, 1);
    double[][] expected = {
        {1, 2, 0, 3, 4, 0, 0, 0, 0},
        {0, 1, 2, 0, 3, 4, 0, 0, 0},
        {0, 0, 0, 1, 2, 0, 3, 4, 0},
        {0, 0, 0, 0, 1, 2, 0, 3, 4}};
    // rows of adjoint(I) are the rows of A; rows of apply(I) are its columns
    INDArray rowsOfA = b.linearPart().adjoint(Nd4j.eye(4));
    INDArray columnsOfA = b.linearPart().apply(Nd4j.eye(9));
    for (int r = 0; r < 4; r++) {
      assertThat(rowsOfA.getRow(r).toDoubleVector()).containsExactly(expected[r], within(0.0));
      for (int c = 0; c < 9; c++) {
        assertThat(columnsOfA.getDouble(c, r)).isEqualTo(expected[r][c]);
      }
    }
  }

  @Test
  void convolutionEqualsABruteForceLoopAndItsAdjointIsItsTranspose() {
    Random rnd = new Random(3);
    ConvolutionBlock b = conv(rnd, 2, 7, 6, 3, 3, 2, 1, ConvolutionMode.Truncate);
    INDArray x = Nd4j.randn(new long[] {4, 2 * 7 * 6});
    INDArray u = b.apply(x);
    assertThat(u.shape()).containsExactly(4, 3 * 4 * 3);
    for (int i = 0; i < 4; i++) {
      double[] expected = bruteForce(b, x.getRow(i).toDoubleVector(), 2, 7, 6, 3, 3, 2, 1);
      assertThat(u.getRow(i).toDoubleVector()).containsExactly(expected, within(1e-12));
    }
    INDArray y = Nd4j.randn(new long[] {4, 36});
    // ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ row by row, also for Same mode (asymmetric padding) and for pooling
    assertAdjoint(b.linearPart(), x, y);
    ConvolutionBlock same = conv(rnd, 2, 7, 6, 3, 4, 2, 0, ConvolutionMode.Same);
    assertAdjoint(same.linearPart(), x, Nd4j.randn(new long[] {4, same.nOut()}));
    AveragePooling pool = new AveragePooling(ConvolutionGeometry.of(2, 7, 6, new int[] {2, 2},
        new int[] {2, 2}, new int[] {0, 0}, ConvolutionMode.Truncate));
    assertAdjoint(pool, x, Nd4j.randn(new long[] {4, 2 * 3 * 3}));
    // each pooled value is the mean of its 2×2 window: output (0, 1, 1) covers rows 2–3, columns 2–3
    double[] row = x.getRow(0).toDoubleVector();
    assertThat(pool.apply(x).getDouble(0, 4))
        .isCloseTo((row[14] + row[15] + row[20] + row[21]) / 4, within(1e-14));
  }

  private static void assertAdjoint(LinearMap a, INDArray x, INDArray y) {
    INDArray left = a.apply(x).mul(y).sum(1);
    INDArray right = x.mul(a.adjoint(y)).sum(1);
    assertThat(left.toDoubleVector()).containsExactly(right.toDoubleVector(), within(1e-11));
  }

  /** Cross-correlation by definition: z[o,i,j] = b[o] + Σ W[o,c,p,q]·x[c, i·s+p−pad, j·s+q−pad]. */
  static double[] bruteForce(ConvolutionBlock b, double[] x, int c, int h, int w, int out, int k,
      int s, int pad) {
    double[] params = b.layerParameters().toDoubleVector();
    int oh = (h + 2 * pad - k) / s + 1;
    int ow = (w + 2 * pad - k) / s + 1;
    double[] z = new double[out * oh * ow];
    for (int o = 0; o < out; o++) {
      for (int i = 0; i < oh; i++) {
        for (int j = 0; j < ow; j++) {
          double sum = params[o];
          for (int ch = 0; ch < c; ch++) {
            for (int p = 0; p < k; p++) {
              for (int q = 0; q < k; q++) {
                int r = i * s + p - pad;
                int col = j * s + q - pad;
                if (r >= 0 && r < h && col >= 0 && col < w) {
                  sum += params[out + ((o * c + ch) * k + p) * k + q] * x[(ch * h + r) * w + col];
                }
              }
            }
          }
          z[(o * oh + i) * ow + j] = sum;
        }
      }
    }
    return z;
  }

  @Test
  void conjugateGradientXUpdateEqualsADenseSolve() {
    Random rnd = new Random(11);
    ConvolutionBlock b = conv(rnd, 2, 6, 6, 3, 3, 1, 0, ConvolutionMode.Truncate);
    AveragePooling pool = new AveragePooling(ConvolutionGeometry.of(2, 6, 6, new int[] {2, 2},
        new int[] {2, 2}, new int[] {0, 0}, ConvolutionMode.Truncate));
    ConvolutionBlock afterPool = conv(rnd, 2, 3, 3, 4, 2, 1, 0, ConvolutionMode.Truncate);
    for (LiftedBlock block : new LiftedBlock[] {b, new PooledBlock(pool, 72, afterPool)}) {
      INDArray u = Nd4j.randn(new long[] {3, block.nOut()});
      INDArray s = Nd4j.randn(new long[] {3, block.nIn()});
      INDArray cg = block.solveInput(u, s);
      // dense reference: A built column by column, (AᵀA + I)x = Aᵀ(u − c) + s by LU
      RealMatrix at = new Array2DRowRealMatrix(block.linearPart().apply(Nd4j.eye(block.nIn()))
          .toDoubleMatrix());   // [nIn, nOut] = Aᵀ
      RealMatrix normal = at.multiply(at.transpose());
      for (int i = 0; i < block.nIn(); i++) {
        normal.addToEntry(i, i, 1.0);
      }
      double[] c = block.biasRow().toDoubleVector();
      for (int e = 0; e < 3; e++) {
        double[] centred = u.getRow(e).toDoubleVector();
        for (int k = 0; k < c.length; k++) {
          centred[k] -= c[k];
        }
        ArrayRealVector rhs = (ArrayRealVector) at.operate(new ArrayRealVector(centred))
            .add(new ArrayRealVector(s.getRow(e).toDoubleVector()));
        double[] exact = new LUDecomposition(normal).getSolver().solve(rhs).toArray();
        // default tolerance: relative residual 1e-6
        assertThat(cg.getRow(e).toDoubleVector()).as("%s example %s", block, e)
            .containsExactly(exact, within(1e-5));
        INDArray tight = ConjugateGradient.solveShiftedNormal(block.linearPart(),
            Nd4j.createFromArray(rhs.toArray()).reshape(1, block.nIn()), 1e-13, 500);
        assertThat(tight.toDoubleVector()).containsExactly(exact, within(1e-10));
      }
    }
  }

  @Test
  void clippedGradientEqualsBruteForceHuberGradientAndEveryExampleIsBoundedByC() {
    // reference by loops: residual r_i = γ(W∗x_i + b − t_i), patch norm ‖P_i‖_F² = Σ over positions and kernel
    // offsets of x², bound a_i = √(1 + ‖P_i‖_F²/m), scale s_i = min(1, (C/a_i)/‖r_i‖); the gradient is linear in r
    Random rnd = new Random(5);
    int c = 2;
    int h = 5;
    int k = 3;
    int s = 2;
    int out = 2;
    double gamma = 0.7;
    ConvolutionBlock b = conv(rnd, c, h, h, out, k, s, 1, ConvolutionMode.Truncate);
    int n = 6;
    INDArray x = Nd4j.randn(new long[] {n, c * h * h});
    INDArray t = Nd4j.randn(new long[] {n, b.nOut()});
    int positions = 9;    // 3×3 outputs
    int m = 4;            // ⌈3/2⌉²
    double[][] raw = new double[n][];
    double[] stepNorms = new double[n];
    double[] residualNorms = new double[n];
    double[] bounds = new double[n];
    for (int i = 0; i < n; i++) {
      double[] xi = x.getRow(i).toDoubleVector();
      double[] ti = t.getRow(i).toDoubleVector();
      raw[i] = bruteForceGradient(b, xi, ti, c, h, out, k, s, 1, gamma);
      double sq = 0;
      for (int p = 0; p < raw[i].length; p++) {
        double scaled = raw[i][p] / Math.sqrt(p < out ? positions : m);
        sq += scaled * scaled;
      }
      stepNorms[i] = Math.sqrt(sq);
      double[] z = bruteForce(b, xi, c, h, h, out, k, s, 1);
      double rr = 0;
      for (int q = 0; q < z.length; q++) {
        rr += gamma * gamma * (z[q] - ti[q]) * (z[q] - ti[q]);
      }
      residualNorms[i] = Math.sqrt(rr);
      double pp = 0;
      for (int oy = 0; oy < 3; oy++) {
        for (int ox = 0; ox < 3; ox++) {
          for (int ch = 0; ch < c; ch++) {
            for (int ky = 0; ky < k; ky++) {
              for (int kx = 0; kx < k; kx++) {
                int row = oy * s + ky - 1;
                int col = ox * s + kx - 1;
                if (row >= 0 && row < h && col >= 0 && col < h) {
                  pp += Math.pow(xi[(ch * h + row) * h + col], 2);
                }
              }
            }
          }
        }
      }
      bounds[i] = Math.sqrt(1 + pp / m);
      assertThat(stepNorms[i]).as("‖M_iᵀr_i‖ ≤ a_i‖r_i‖").isLessThanOrEqualTo(bounds[i] * residualNorms[i] * (1 + 1e-12));
    }
    ConvolutionBlockGradient loose = ConvolutionBlockGradient.compute(b, x, t, gamma, 1e9);
    assertThat(loose.unclippedNorms().toDoubleVector()).containsExactly(stepNorms, within(1e-10));
    double clip = 0.5 * java.util.Arrays.stream(stepNorms).min().orElseThrow();
    double[] mean = new double[raw[0].length];
    for (int i = 0; i < n; i++) {
      double scale = Math.min(1, clip / bounds[i] / residualNorms[i]);
      assertThat(scale * stepNorms[i]).isLessThanOrEqualTo(clip * (1 + 1e-12));
      for (int p = 0; p < mean.length; p++) {
        mean[p] += scale * raw[i][p] / Math.sqrt(p < out ? positions : m) / n;
      }
    }
    INDArray clipped = b.clippedGradient(x, t, gamma, clip);
    assertThat(clipped.toDoubleVector()).containsExactly(mean, within(1e-12));
    assertThat(clipped.norm2Number().doubleValue()).isLessThanOrEqualTo(clip * (1 + 1e-12));
  }

  @Test
  void proximalPointStepEqualsADenseSolveOfItsQuadraticObjective() {
    // reference: the block's map θ̃ ↦ (W∗x_i + b)_i is linear; probe it with unit vectors (forward pass, checked
    // against loops above), then solve (I/η + (w/n)AᵀA)z = θ̃₀/η + (w/n)Aᵀt by LU (commons-math)
    Random rnd = new Random(8);
    ConvolutionBlock b = conv(rnd, 2, 5, 5, 2, 3, 2, 1, ConvolutionMode.Truncate);
    int n = 4;
    INDArray x = Nd4j.randn(new long[] {n, 50});
    INDArray t = Nd4j.randn(new long[] {n, b.nOut()});
    double eta = 0.7;
    double w = 0.9;
    INDArray theta0 = b.stepCoordinates();
    int p = (int) b.parameterCount();
    int rows = n * b.nOut();
    double[][] a = new double[rows][p];
    for (int j = 0; j < p; j++) {
      INDArray e = Nd4j.zeros(1, p);
      e.putScalar(0, j, 1.0);
      b.setStepCoordinates(e);
      double[] column = b.apply(x).reshape(rows).toDoubleVector();
      for (int r = 0; r < rows; r++) {
        a[r][j] = column[r];
      }
    }
    RealMatrix am = new Array2DRowRealMatrix(a);
    RealMatrix normal = am.transpose().multiply(am).scalarMultiply(w / n)
        .add(org.apache.commons.math3.linear.MatrixUtils.createRealIdentityMatrix(p).scalarMultiply(1 / eta));
    double[] rhs = am.transpose().operate(t.reshape(rows).toDoubleVector());
    double[] th = theta0.toDoubleVector();
    for (int j = 0; j < p; j++) {
      rhs[j] = rhs[j] * w / n + th[j] / eta;
    }
    double[] expected = new LUDecomposition(normal).getSolver().solve(new ArrayRealVector(rhs)).toArray();
    b.setStepCoordinates(theta0);
    b.proximalPointStep(x, t, w, eta, 0.0, 0.01, org.dp4j.prox.ProximalOperator.none(), (target, std) -> { });
    assertThat(b.stepCoordinates().toDoubleVector()).containsExactly(expected, within(1e-9));
  }

  @Test
  void clippedGradientStepIsNonExpansiveAtTheCertifiedStepSize() {
    // SAFE mode's L_F = 1 for θ̃ ↦ θ̃ − η·ḡ(θ̃) with η(ρ² + 1)γ ≤ 2 needs the clipped ḡ to be the gradient of a
    // convex, γ(ρ² + 1)-smooth function; probe pairs of nearby parameters with clipping active
    Random rnd = new Random(17);
    double gamma = 1.0;
    double rho = 1.0;
    double eta = 2.0 / (gamma * (rho * rho + 1));
    double worst = 0;
    for (int trial = 0; trial < 300; trial++) {
      ConvolutionBlock b = conv(rnd, 1, 4, 4, 1, 2, 1, 0, ConvolutionMode.Truncate);
      INDArray x = Nd4j.randn(new long[] {1, 16});
      RowNormClip.clipInPlace(x, rho);
      INDArray t = Nd4j.randn(new long[] {1, b.nOut()});
      INDArray theta = Nd4j.randn(new long[] {1, b.parameterCount()});
      double norm = b.clippedGradient(x, t, gamma, 1e9).norm2Number().doubleValue();
      double clip = norm * (0.3 + 0.6 * rnd.nextDouble());   // clipping active, but not far below the norm
      INDArray other = theta.add(Nd4j.randn(new long[] {1, b.parameterCount()}).muli(1e-4));
      INDArray f1 = step(b, theta, x, t, gamma, eta, clip);
      INDArray f2 = step(b, other, x, t, gamma, eta, clip);
      worst = Math.max(worst, f1.distance2(f2) / theta.distance2(other));
    }
    assertThat(worst).isLessThanOrEqualTo(1 + 1e-6);
  }

  private static INDArray step(ConvolutionBlock b, INDArray theta, INDArray x, INDArray t, double gamma, double eta,
      double clip) {
    b.setStepCoordinates(theta.dup());
    INDArray g = b.clippedGradient(x, t, gamma, clip);
    return b.stepCoordinates().sub(g.reshape(theta.shape()).mul(eta));
  }

  @Test
  void perExampleGradientEqualsDl4jBackprop() {
    // a DL4J conv layer (identity activation) on the same parameters: its backprop with ε = γ(z − t) is the raw
    // gradient; the block's (unclipped, b = 1) gradient in step coordinates is it divided by (√L, √m)
    var conf = new NeuralNetConfiguration.Builder().seed(1)
        .dataType(DataType.DOUBLE).list()
        .layer(new ConvolutionLayer.Builder(3, 3).stride(2, 2)
            .padding(1, 1).nOut(2).activation(Activation.IDENTITY).build())
        .layer(new OutputLayer.Builder(
            LossFunctions.LossFunction.MSE).nOut(1)
            .activation(Activation.IDENTITY).build())
        .setInputType(InputType.convolutionalFlat(5, 5, 2)).build();
    var net = new MultiLayerNetwork(conf);
    net.init();
    net.initGradientsView();
    var layer = net.getLayer(0);
    layer.setParams(Nd4j.randn(new long[] {1, layer.numParams()}));
    ConvolutionBlock b = ConvolutionBlock.fromLayerParameters(layer.params(),
        ConvolutionGeometry.of(2, 5, 5, new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1},
            ConvolutionMode.Truncate), 2);
    double gamma = 1.3;
    INDArray x = Nd4j.randn(new long[] {1, 50});
    INDArray t = Nd4j.randn(new long[] {1, b.nOut()});
    var mgr = LayerWorkspaceMgr.noWorkspaces();
    layer.setInput(x.reshape(1, 2, 5, 5), mgr);
    INDArray z = layer.activate(true, mgr);
    assertThat(z.reshape(b.nOut()).toDoubleVector())
        .containsExactly(b.apply(x).reshape(b.nOut()).toDoubleVector(), within(1e-12));
    INDArray eps = z.sub(t.reshape(z.shape())).muli(gamma);
    var grad = layer.backpropGradient(eps, mgr).getFirst();
    INDArray expectedBias = grad.getGradientFor("b").reshape(2).div(Math.sqrt(9));
    INDArray expectedWeights = grad.getGradientFor("W").reshape(36).div(Math.sqrt(4));
    INDArray mine = b.clippedGradient(x, t, gamma, 1e9).reshape(38);
    assertThat(mine.get(NDArrayIndex.interval(0, 2)).toDoubleVector())
        .containsExactly(expectedBias.toDoubleVector(), within(1e-12));
    assertThat(mine.get(NDArrayIndex.interval(2, 38)).toDoubleVector())
        .containsExactly(expectedWeights.toDoubleVector(), within(1e-12));
  }

  /** ∇ of (γ/2)‖z − t‖² in DL4J order [bias, W], z by {@link #bruteForce}, by the chain rule in loops. */
  private static double[] bruteForceGradient(ConvolutionBlock b, double[] x, double[] t, int c, int h,
      int out, int k, int s, int pad, double gamma) {
    double[] z = bruteForce(b, x, c, h, h, out, k, s, pad);
    int o2 = (h + 2 * pad - k) / s + 1;
    double[] g = new double[out * (c * k * k + 1)];
    for (int o = 0; o < out; o++) {
      for (int i = 0; i < o2; i++) {
        for (int j = 0; j < o2; j++) {
          double r = gamma * (z[(o * o2 + i) * o2 + j] - t[(o * o2 + i) * o2 + j]);
          g[o] += r;
          for (int ch = 0; ch < c; ch++) {
            for (int p = 0; p < k; p++) {
              for (int q = 0; q < k; q++) {
                int row = i * s + p - pad;
                int col = j * s + q - pad;
                if (row >= 0 && row < h && col >= 0 && col < h) {
                  g[out + ((o * c + ch) * k + p) * k + q] += r * x[(ch * h + row) * h + col];
                }
              }
            }
          }
        }
      }
    }
    return g;
  }

  @Test
  void stepCoordinateCurvatureIsBoundedByTheDenseBoundWhileRawCoordinatesNeedP4() {
    // Hessian of (γ/2)‖u − W∗x − b‖² per output channel: γ·M·Mᵀ with M = [P(x); 1ᵀ] (raw) or
    // [P(x)/√m; 1ᵀ/√L] (step coordinates). P4: ‖P‖² ≤ m‖x‖², so raw ≤ γ(mρ² + L), step ≤ γ(ρ² + 1).
    Random rnd = new Random(2);
    double gamma = 1.0;
    double rho = 1.0;
    ConvolutionBlock b = conv(rnd, 1, 12, 12, 1, 3, 1, 0, ConvolutionMode.Truncate);
    int positions = 100;
    int m = 9;
    INDArray constant = Nd4j.ones(1, 144).divi(12.0);          // ‖x‖ = 1: the worst case for ‖P‖
    INDArray random = Nd4j.randn(new long[] {1, 144});
    random.divi(random.norm2Number());
    for (INDArray x : new INDArray[] {constant, random}) {
      double[][] p = b.patches(x).reshape(positions, 9).transpose().toDoubleMatrix();   // [K, L]
      double raw = spectralNormSquared(p, 1.0, 1.0);
      double step = spectralNormSquared(p, 1.0 / Math.sqrt(m), 1.0 / Math.sqrt(positions));
      assertThat(gamma * raw).isLessThanOrEqualTo(gamma * (m * rho * rho + positions));
      assertThat(gamma * step).isLessThanOrEqualTo(gamma * (rho * rho + 1) + 1e-12);
    }
    // the constant image nearly attains P4's weight bound: ‖P‖² = K·L/144 = 6.25 of m = 9
    double[][] p = b.patches(constant).reshape(positions, 9).transpose().toDoubleMatrix();
    assertThat(spectralNormSquared(p, 1.0, 0.0)).isCloseTo(9.0 * 100 / 144, within(1e-12));
  }

  /** ‖[a·P; c·1ᵀ]‖₂² for P [K, L]. */
  private static double spectralNormSquared(double[][] p, double a, double c) {
    int k = p.length;
    int l = p[0].length;
    double[][] m = new double[k + 1][l];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < l; j++) {
        m[i][j] = a * p[i][j];
      }
    }
    java.util.Arrays.fill(m[k], c);
    double s = new SingularValueDecomposition(new Array2DRowRealMatrix(m)).getNorm();
    return s * s;
  }
}
