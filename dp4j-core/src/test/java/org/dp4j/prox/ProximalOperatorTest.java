package org.dp4j.prox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class ProximalOperatorTest {
  private static final double[] THETA = {0.5, -0.05, -0.3};

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  @Test
  void l1MatchesDigestVector() {
    // docs/errata.md#dp-mbcd-prox-formulas: soft threshold of [0.5, -0.05, -0.3] at eta = 0.1
    assertThat(ProximalOperator.l1(1.0).apply(THETA, 0.1))
        .containsExactly(new double[] {0.4, 0.0, -0.2}, within(1e-15));
  }

  @Test
  void squaredL2MatchesDigestCorrectionNotThePaper() {
    // docs/errata.md#dp-mbcd-prox-formulas: correct prox theta/(1+eta); the paper's eta/(1+eta)*theta is 10x smaller
    double[] p = ProximalOperator.squaredL2(1.0).apply(THETA, 0.1);
    assertThat(p).containsExactly(
        new double[] {0.4545454545, -0.0454545455, -0.2727272727}, within(1e-10));
    assertThat(p[0]).isNotCloseTo(0.0454545455, within(1e-3));
    assertThat(ProximalOperator.squaredL2(1.0).lipschitzConstant(0.1))
        .isCloseTo(1 / 1.1, within(1e-15));
  }

  @Test
  void l2NormIsBlockSoftThreshold() {
    // v = (3, 4), ||v|| = 5, eta*lambda = 1: (1 - 1/5) * v = (2.4, 3.2); below the threshold -> 0
    ProximalOperator prox = ProximalOperator.l2Norm(2.0);
    assertThat(prox.apply(new double[] {3, 4}, 0.5))
        .containsExactly(new double[] {2.4, 3.2}, within(1e-15));
    assertThat(prox.apply(new double[] {0.3, 0.4}, 0.5))
        .containsExactly(new double[] {0, 0}, within(0.0));
  }

  @Test
  void projectionsMatchClosedForms() {
    assertThat(ProximalOperator.ball(1.0).apply(new double[] {3, 4}, 0.1))
        .containsExactly(new double[] {0.6, 0.8}, within(1e-15));
    assertThat(ProximalOperator.ball(10.0).apply(new double[] {3, 4}, 0.1))
        .containsExactly(new double[] {3, 4}, within(0.0));
    assertThat(ProximalOperator.box(0, Double.POSITIVE_INFINITY).apply(THETA, 0.1))
        .containsExactly(new double[] {0.5, 0, 0}, within(0.0));
    assertThat(ProximalOperator.box(-0.1, 0.2).apply(THETA, 0.1))
        .containsExactly(new double[] {0.2, -0.05, -0.1}, within(0.0));
    assertThat(ProximalOperator.none().apply(THETA, 0.1)).containsExactly(THETA);
  }

  @Test
  void everyOperatorMinimisesTheProxObjectiveByBruteForce() {
    Random rnd = new Random(7);
    for (ProximalOperator prox : operators()) {
      for (double eta : new double[] {0.1, 0.7}) {
        for (int trial = 0; trial < 4; trial++) {
          double[] v = {2 * rnd.nextGaussian(), 2 * rnd.nextGaussian()};
          double[] grid = bruteForceProx(prox, v, eta);
          double[] p = prox.apply(v, eta);
          // no grid point does better, and the minimiser is where the grid says (the objective is
          // flat to second order along a constraint boundary, hence the looser position tolerance)
          assertThat(objective(prox, p, v, eta)).as("%s at v=(%s, %s), eta=%s", prox, v[0], v[1], eta)
              .isLessThanOrEqualTo(objective(prox, grid, v, eta) + 1e-12);
          assertThat(p).containsExactly(grid, within(1e-2));
        }
      }
    }
  }

  @Test
  void ndArrayAndDoubleVersionsAgree() {
    Random rnd = new Random(11);
    double[] v = new double[12];
    for (int i = 0; i < v.length; i++) {
      v[i] = rnd.nextGaussian();
    }
    INDArray m = Nd4j.createFromArray(v).reshape(3, 4);
    for (ProximalOperator prox : operators()) {
      INDArray out = prox.apply(m, 0.3);
      assertThat(out.shape()).containsExactly(3, 4);
      assertThat(out.reshape(12).toDoubleVector()).as(prox.description())
          .containsExactly(prox.apply(v, 0.3), within(1e-14));
      assertThat(m.reshape(12).toDoubleVector()).as("input untouched").containsExactly(v);
    }
  }

  @Test
  void everyOperatorIsLipschitzWithItsStatedConstantAtMostOne() {
    Random rnd = new Random(3);
    for (ProximalOperator prox : operators()) {
      double lt = prox.lipschitzConstant(0.4);
      assertThat(lt).isGreaterThan(0).isLessThanOrEqualTo(1.0);
      for (int trial = 0; trial < 200; trial++) {
        double[] a = {rnd.nextGaussian(), rnd.nextGaussian(), rnd.nextGaussian()};
        double[] b = {rnd.nextGaussian(), rnd.nextGaussian(), rnd.nextGaussian()};
        double num = ProxArguments.norm2(minus(prox.apply(a, 0.4), prox.apply(b, 0.4)));
        assertThat(num).isLessThanOrEqualTo(lt * ProxArguments.norm2(minus(a, b)) + 1e-12);
      }
    }
  }

  @Test
  void rejectsInvalidArguments() {
    assertThatThrownBy(() -> ProximalOperator.l1(1).apply(THETA, 0.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eta").hasMessageContaining("0.0");
    assertThatThrownBy(() -> ProximalOperator.l1(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1.0");
    assertThatThrownBy(() -> ProximalOperator.ball(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("radius");
    assertThatThrownBy(() -> ProximalOperator.box(1, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lo <= hi");
  }

  private static List<ProximalOperator> operators() {
    return List.of(ProximalOperator.none(), ProximalOperator.l1(0.8),
        ProximalOperator.squaredL2(1.5), ProximalOperator.l2Norm(1.2), ProximalOperator.ball(0.9),
        ProximalOperator.box(-0.5, 0.25), ProximalOperator.box(0, Double.POSITIVE_INFINITY));
  }

  /** argmin over a grid, refined twice around the best point, of ½‖θ − v‖² + η r(θ) in 2D. */
  private static double[] bruteForceProx(ProximalOperator prox, double[] v, double eta) {
    double[] best = {0, 0};
    double half = 8.0;
    double bestValue = Double.POSITIVE_INFINITY;
    double[] centre = {0, 0};
    for (int level = 0; level < 4; level++) {
      int steps = 400;
      double h = 2 * half / steps;
      for (int i = 0; i <= steps; i++) {
        for (int k = 0; k <= steps; k++) {
          double[] t = {centre[0] - half + i * h, centre[1] - half + k * h};
          double f = objective(prox, t, v, eta);
          if (f < bestValue) {
            bestValue = f;
            best = t;
          }
        }
      }
      centre = best.clone();
      half = 4 * h;
    }
    return best;
  }

  private static double objective(ProximalOperator prox, double[] t, double[] v, double eta) {
    double d = ProxArguments.norm2(minus(t, v));
    return 0.5 * d * d + eta * prox.penalty(t);
  }

  private static double[] minus(double[] a, double[] b) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i] - b[i];
    }
    return d;
  }
}
