package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationELU;
import org.nd4j.linalg.activations.impl.ActivationSigmoid;
import org.nd4j.linalg.activations.impl.ActivationSoftSign;
import org.nd4j.linalg.activations.impl.ActivationTanH;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link ActivationBackprop} against DL4J's own {@link IActivation#backprop} (libnd4j's {@code tanh_bp} and
 * {@code sigmoid_bp}, which recompute the activation): bit for bit on 10⁶ values of z ~ N(0, 9) (saturated and
 * central values) with ε ~ N(0, 1), and the activations it does not compute itself go to DL4J unchanged.
 */
class ActivationBackpropTest {
  private static final int N = 1_000_000;

  enum Type {
    FLOAT(DataType.FLOAT), DOUBLE(DataType.DOUBLE);

    final DataType type;

    Type(DataType type) {
      this.type = type;
    }
  }

  @ParameterizedTest
  @EnumSource(Type.class)
  void tanhFromTheOutputIsBitForBitDl4js(Type t) {
    // The same derivative as (1 − a)(1 + a)·ε: other float operations, which differ in many elements.
    assertBitForBit(new ActivationTanH(), t, (a, e) -> a.rsub(1.0).muli(a.add(1.0)).muli(e));
  }

  @ParameterizedTest
  @EnumSource(Type.class)
  void sigmoidFromTheOutputIsBitForBitDl4js(Type t) {
    // The same derivative as (a − a·a)·ε: other float operations, which differ in many elements.
    assertBitForBit(new ActivationSigmoid(), t, (a, e) -> a.sub(a.mul(a)).muli(e));
  }

  private static void assertBitForBit(IActivation activation, Type t,
      java.util.function.BinaryOperator<INDArray> otherForm) {
    Nd4j.getRandom().setSeed(20);
    INDArray z = Nd4j.randn(t.type, 1000, N / 1000).muli(3);
    INDArray epsilon = Nd4j.randn(t.type, 1000, N / 1000);
    INDArray output = activation.getActivation(z.dup(), true);
    INDArray expected = activation.backprop(z.dup(), epsilon.dup()).getFirst();
    INDArray kept = epsilon.dup();
    INDArray overwritten = z.dup();
    INDArray got = ActivationBackprop.dLdz(activation, overwritten, output, epsilon);
    assertThat(got).isSameAs(overwritten);
    assertThat(got.neq(expected).castTo(DataType.INT32).sumNumber().intValue()).as("elements that differ").isZero();
    assertThat(epsilon.equals(kept)).as("epsilon untouched").isTrue();
    // The test can fail: the same derivative in other float operations differs in many elements.
    INDArray other = otherForm.apply(output, epsilon);
    assertThat(other.neq(expected).castTo(DataType.INT32).sumNumber().intValue()).isGreaterThan(1000);
  }

  @ParameterizedTest
  @EnumSource(Type.class)
  void otherActivationsAndMissingOutputsGoToDl4j(Type t) {
    Nd4j.getRandom().setSeed(21);
    INDArray z = Nd4j.randn(t.type, 50, 40);
    INDArray epsilon = Nd4j.randn(t.type, 50, 40);
    for (IActivation other : new IActivation[] {new ActivationSoftSign(), new ActivationELU()}) {
      INDArray expected = other.backprop(z.dup(), epsilon.dup()).getFirst();
      INDArray got = ActivationBackprop.dLdz(other, z.dup(), other.getActivation(z.dup(), true), epsilon);
      assertThat(got.equals(expected)).as(other.toString()).isTrue();
    }
    IActivation tanh = new ActivationTanH();
    INDArray tanhExpected = tanh.backprop(z.dup(), epsilon.dup()).getFirst();
    assertThat(ActivationBackprop.dLdz(tanh, z.dup(), null, epsilon).equals(tanhExpected)).isTrue();
  }
}
