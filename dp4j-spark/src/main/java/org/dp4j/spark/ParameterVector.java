package org.dp4j.spark;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.io.Serializable;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A flat vector in a network's floating-point type — its parameters (broadcast to the executors) or a clipped
 * gradient sum (returned by them) — as a plain Java array, so it crosses Spark's serialisers without ND4J's native
 * buffers: 4 bytes per parameter for a FLOAT network, 8 for DOUBLE.
 */
final class ParameterVector implements Serializable {
  private static final long serialVersionUID = 1L;

  private final float[] floats;
  private final double[] doubles;

  private ParameterVector(float[] floats, double[] doubles) {
    this.floats = floats;
    this.doubles = doubles;
  }

  /** A copy of the array's entries (FLOAT stays float, anything else is kept as double). */
  static ParameterVector of(INDArray array) {
    INDArray flat = array.reshape(array.length());
    return array.dataType() == DataType.FLOAT ? new ParameterVector(flat.toFloatVector(), null)
        : new ParameterVector(null, flat.castTo(DataType.DOUBLE).toDoubleVector());
  }

  /** Zeros of the given length and type. */
  static ParameterVector zeros(long length, DataType type) {
    checkArgument(length <= Integer.MAX_VALUE, "%s parameters do not fit one Java array", length);
    return type == DataType.FLOAT ? new ParameterVector(new float[(int) length], null)
        : new ParameterVector(null, new double[(int) length]);
  }

  int length() {
    return floats != null ? floats.length : doubles.length;
  }

  /** A [1, length] array of the vector's type. */
  INDArray toRow() {
    return floats != null ? Nd4j.createFromArray(floats).reshape(1, floats.length)
        : Nd4j.createFromArray(doubles).reshape(1, doubles.length);
  }

  /** Writes the entries into {@code target} (same length). */
  void copyInto(INDArray target) {
    checkArgument(target.length() == length(), "vector of %s entries, target of %s", length(), target.length());
    target.assign(toRow().reshape(target.shape()).castTo(target.dataType()));
  }

  /** Adds {@code other} into this vector and returns it (Spark's reduce may reuse its left argument). */
  ParameterVector addInPlace(ParameterVector other) {
    checkArgument(other.length() == length(), "cannot add vectors of %s and %s entries", length(), other.length());
    if (floats != null) {
      float[] o = other.floats != null ? other.floats : toFloats(other.doubles);
      for (int i = 0; i < floats.length; i++) {
        floats[i] += o[i];
      }
    } else {
      for (int i = 0; i < doubles.length; i++) {
        doubles[i] += other.doubles != null ? other.doubles[i] : other.floats[i];
      }
    }
    return this;
  }

  private static float[] toFloats(double[] d) {
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) {
      f[i] = (float) d[i];
    }
    return f;
  }
}
