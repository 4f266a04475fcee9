package org.dp4j.clipping;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Element access by index to the memory of a float or double ND4J array, for the few kernels dp4j runs in Java
 * (one call per element would cost a native call through {@code INDArray.getDouble}; this reads the direct buffer).
 * Indices are relative to the array's own {@code offset()}, in units of elements, so {@code i = Σ_d idx_d·stride_d}
 * for any view.
 */
abstract class BufferElements {
  final int offset;

  private BufferElements(long offset) {
    this.offset = (int) offset;
  }

  /** Whether {@link #of} accepts the array: float or double, with every element addressable by an int. */
  static boolean supports(INDArray a) {
    return (a.dataType() == DataType.FLOAT || a.dataType() == DataType.DOUBLE)
        && a.data().underlyingLength() < Integer.MAX_VALUE;
  }

  /**
   * Whether the array's elements lie in row-major order without gaps from its offset on (what the Java kernels
   * that read or write its buffer in one run need). ND4J's {@code Shape.hasDefaultStridesForShape} says no to some
   * such arrays with dimensions of size 1 (e.g. [16, 24, 24, 5, 5, 1], strides [14400, 600, 25, 5, 1, 1]); the
   * strides of size-1 dimensions do not matter here.
   */
  static boolean rowMajor(INDArray a) {
    long expected = 1;
    for (int d = a.rank() - 1; d >= 0; d--) {
      if (a.size(d) != 1 && a.stride(d) != expected) {
        return false;
      }
      expected *= a.size(d);
    }
    return true;
  }

  static BufferElements of(INDArray a) {
    return a.dataType() == DataType.FLOAT ? new Floats(a) : new Doubles(a);
  }

  abstract double get(int i);

  abstract void set(int i, double v);

  /** The largest finite value of the type, as libnd4j's {@code DataTypeUtils::max} (the start of a max search). */
  abstract double largest();

  private static final class Floats extends BufferElements {
    private final FloatBuffer b;

    Floats(INDArray a) {
      super(a.offset());
      b = a.data().asNioFloat();
    }

    @Override
    double get(int i) {
      return b.get(offset + i);
    }

    @Override
    void set(int i, double v) {
      b.put(offset + i, (float) v);
    }

    @Override
    double largest() {
      return Float.MAX_VALUE;
    }
  }

  private static final class Doubles extends BufferElements {
    private final DoubleBuffer b;

    Doubles(INDArray a) {
      super(a.offset());
      b = a.data().asNioDouble();
    }

    @Override
    double get(int i) {
      return b.get(offset + i);
    }

    @Override
    void set(int i, double v) {
      b.put(offset + i, v);
    }

    @Override
    double largest() {
      return Double.MAX_VALUE;
    }
  }
}
