package org.dp4j.features;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Group normalisation of each example's features by its own statistics (Wu &amp; He 2018, Eq. 1 with the groups of
 * Sec. 3.1, no affine parameters): the C channels are split into G groups of consecutive channels, and every value
 * of a group is centred and divided by √(var + ε) of that group in that example (biased variance, ε = 1e-5, as in
 * PyTorch's {@code GroupNorm}). Tramèr &amp; Boneh 2021 normalise ScatterNet features this way (G = 27 for 81
 * channels).
 *
 * <p>Privacy: the map of one example depends on that example only, so applying it to every record before
 * training changes no neighbouring relation and costs no privacy budget; no statistic of the data set is used.
 *
 * <pre>{@code
 * // given: ScatteringTransform transform; INDArray images
 * INDArray f = transform.transform(images);                       // [n, 81·49]
 * GroupNormalisation.of(27, 81, 49).normaliseInPlace(f);
 * }</pre>
 */
public final class GroupNormalisation {
  /** PyTorch's default ε. */
  public static final double EPSILON = 1e-5;
  private static final long BLOCK_ROWS = 2048;
  private final int groups;
  private final int channels;
  private final int valuesPerChannel;

  private GroupNormalisation(int groups, int channels, int valuesPerChannel) {
    this.groups = groups;
    this.channels = channels;
    this.valuesPerChannel = valuesPerChannel;
  }

  /**
   * G groups over C channels of {@code valuesPerChannel} values each (channel-major features).
   *
   * @throws IllegalArgumentException unless G divides C
   */
  public static GroupNormalisation of(int groups, int channels, int valuesPerChannel) {
    checkArgument(groups >= 1 && channels >= 1 && channels % groups == 0,
        "groups must divide channels (%s), was %s", channels, groups);
    checkArgument(valuesPerChannel >= 1, "valuesPerChannel must be >= 1, was %s", valuesPerChannel);
    return new GroupNormalisation(groups, channels, valuesPerChannel);
  }

  public int groups() {
    return groups;
  }

  /** Normalises {@code features} [n, C·valuesPerChannel] (c-order, contiguous) in place and returns it. */
  public INDArray normaliseInPlace(INDArray features) {
    long width = (long) channels * valuesPerChannel;
    checkArgument(features.rank() == 2 && features.size(1) == width && features.ordering() == 'c'
        && features.elementWiseStride() == 1, "features must be a c-order [n, %s] array, was %s", width,
        java.util.Arrays.toString(features.shape()));
    long n = features.size(0);
    // in blocks of rows, so that the temporaries stay small for a whole training set
    for (long from = 0; from < n; from += BLOCK_ROWS) {
      long to = Math.min(n, from + BLOCK_ROWS);
      INDArray g = features.get(NDArrayIndex.interval(from, to), NDArrayIndex.all())
          .reshape((to - from) * groups, width / groups);
      g.subiColumnVector(g.mean(1).reshape(g.size(0), 1));
      g.diviColumnVector(Transforms.sqrt(g.mul(g).mean(1).addi(EPSILON), false).reshape(g.size(0), 1));
    }
    return features;
  }
}
