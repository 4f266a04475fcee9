package org.dp4j.noise;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Prefetched noise is exactly the synchronous noise of the same generator, call after call. */
class PrefetchingNoiseTest {

  private static INDArray noised(NoiseSource source, DataType type, long rows, long cols, double std) {
    INDArray target = Nd4j.zeros(type, rows, cols);
    source.addGaussian(target, std);
    return target;
  }

  @Test
  void sizeStdAndTypeChangesDrawFreshNoiseOfTheRequestedLaw() {
    GaussianNoise plain = GaussianNoise.insecureFixedSeed(41);
    PrefetchingNoise prefetched = new PrefetchingNoise(GaussianNoise.insecureFixedSeed(41));
    // Repeated size (prefetched), then a size change, a std change and a type change (discard, draw anew).
    Object[][] calls = {{DataType.FLOAT, 3L, 50L, 1.5}, {DataType.FLOAT, 3L, 50L, 1.5}, {DataType.FLOAT, 3L, 50L, 1.5},
        {DataType.FLOAT, 7L, 3L, 1.5}, {DataType.FLOAT, 7L, 3L, 0.2}, {DataType.DOUBLE, 7L, 3L, 0.2},
        {DataType.DOUBLE, 7L, 3L, 0.2}, {DataType.HALF, 2L, 2L, 0.2}, {DataType.DOUBLE, 7L, 3L, 0.2}};
    for (Object[] c : calls) {
      DataType type = (DataType) c[0];
      INDArray expected = noised(plain, type, (Long) c[1], (Long) c[2], (Double) c[3]);
      INDArray actual = noised(prefetched, type, (Long) c[1], (Long) c[2], (Double) c[3]);
      // A change discards the block drawn ahead, so from here the two streams differ: check shape and law.
      assertThat(actual.dataType()).isEqualTo(type);
      assertThat(actual.neq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isEqualTo((int) actual.length());
      double std = actual.castTo(DataType.DOUBLE).stdNumber().doubleValue();
      assertThat(std).isBetween(0.4 * (Double) c[3], 1.8 * (Double) c[3]);
      assertThat(expected.shape()).isEqualTo(actual.shape());
    }
  }

  @Test
  void firstBlocksEqualTheSynchronousStream() {
    GaussianNoise plain = GaussianNoise.insecureFixedSeed(42);
    PrefetchingNoise prefetched = new PrefetchingNoise(GaussianNoise.insecureFixedSeed(42));
    for (int call = 0; call < 4; call++) {
      INDArray expected = noised(plain, DataType.FLOAT, 20, 30, 0.7);
      INDArray actual = noised(prefetched, DataType.FLOAT, 20, 30, 0.7);
      assertThat(actual).as("call %s", call).isEqualTo(expected);
    }
  }

  @Test
  void worksOnAFortranOrderViewInsideAnOpenWorkspace() {
    PrefetchingNoise prefetched = new PrefetchingNoise(GaussianNoise.insecureFixedSeed(43));
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().getAndActivateWorkspace("PREFETCH_TEST")) {
      for (int call = 0; call < 3; call++) {
        INDArray base = Nd4j.create(DataType.FLOAT, new long[] {10, 12}, 'f');
        INDArray view = base.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(2, 8),
            org.nd4j.linalg.indexing.NDArrayIndex.all());
        prefetched.addGaussian(view, 1.0);
        assertThat(view.neq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isEqualTo(72);
        assertThat(base.neq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isEqualTo(72);
      }
    }
  }
}
