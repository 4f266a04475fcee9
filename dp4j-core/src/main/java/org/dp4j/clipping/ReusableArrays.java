package org.dp4j.clipping;

import java.util.HashMap;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Named arrays of one layer rule kept from pass to pass, outside every workspace, and grown when a larger batch
 * comes (Poisson batch sizes vary around their mean): the big activations and patch matrices of a convolution are
 * then neither allocated nor zeroed again on each step. {@link #get} hands out a contiguous row-major view of the
 * requested shape over the start of the named buffer; its content is whatever the last pass left there.
 */
final class ReusableArrays {
  private final Map<String, INDArray> buffers = new HashMap<>();
  private final Map<String, String> zeroedShapes = new HashMap<>();

  /** A view [shape] in row-major order over the buffer {@code name}; contents undefined. */
  INDArray get(String name, DataType type, long... shape) {
    long length = 1;
    for (long s : shape) {
      length *= s;
    }
    INDArray buffer = buffers.get(name);
    if (buffer == null || buffer.length() < length || buffer.dataType() != type) {
      long capacity = buffer == null || buffer.dataType() != type ? length
          : Math.max(length, buffer.length() + buffer.length() / 4);
      try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
        buffer = Nd4j.create(type, capacity);
      }
      buffers.put(name, buffer);
      zeroedShapes.remove(name);
    }
    INDArray start = buffer.length() == length ? buffer : buffer.get(NDArrayIndex.interval(0, length));
    return start.reshape('c', shape);
  }

  /**
   * As {@link #get}, for arrays whose caller writes only part of each row and needs the rest to be zero (a padded
   * input): zeroed when the buffer is new or the shape of a row changed, else left as the last pass wrote it (the
   * caller must then write the same parts again).
   */
  INDArray getZeroPadded(String name, DataType type, long... shape) {
    INDArray view = get(name, type, shape);
    String rowShape = java.util.Arrays.toString(java.util.Arrays.copyOfRange(shape, 1, shape.length));
    if (!rowShape.equals(zeroedShapes.get(name))) {
      buffers.get(name).assign(0);
      zeroedShapes.put(name, rowShape);
    }
    return view;
  }
}
