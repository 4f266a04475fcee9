package org.dp4j.samples.bench;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Times several cases in interleaved blocks (case A 10 runs, case B 10 runs, ..., repeat), after warm-up rounds,
 * so that load from other processes on a shared machine falls on every case alike; each case may set the number
 * of ND4J/BLAS threads before its block. Calls a sampler after every run (memory high-water marks).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; DpSgdStep step; INDArray x; INDArray y; java.util.function.IntConsumer setThreads
 * InterleavedTimer t = new InterleavedTimer(10, 3, setThreads, () -> { });
 * t.add("fit", "", 1, () -> net.fit(x, y));
 * t.add("dp", "fit", 1, () -> step.apply(x, y));
 * List<Measurement> m = t.run(25);            // 250 timed runs each
 * }</pre>
 */
final class InterleavedTimer {
  private record Case(String name, String baseline, int threads, Runnable work) {}

  private final int block;
  private final int warmupRounds;
  private final IntConsumer setThreads;
  private final Runnable afterRun;
  private final List<Case> cases = new ArrayList<>();

  InterleavedTimer(int block, int warmupRounds, IntConsumer setThreads, Runnable afterRun) {
    checkArgument(block > 0 && warmupRounds >= 0, "block must be > 0 and warm-up >= 0, were %s and %s", block,
        warmupRounds);
    this.block = block;
    this.warmupRounds = warmupRounds;
    this.setThreads = setThreads;
    this.afterRun = afterRun;
  }

  InterleavedTimer add(String name, String baseline, int threads, Runnable work) {
    cases.add(new Case(name, baseline, threads, work));
    return this;
  }

  /** Runs {@code rounds} timed rounds (after the warm-up) and returns one measurement per case, in order. */
  List<Measurement> run(int rounds) {
    checkArgument(rounds > 0, "rounds must be > 0, was %s", rounds);
    Map<Case, double[]> ms = new LinkedHashMap<>();
    cases.forEach(c -> ms.put(c, new double[rounds * block]));
    for (int round = -warmupRounds; round < rounds; round++) {
      for (Case c : cases) {
        setThreads.accept(c.threads());
        double[] out = ms.get(c);
        for (int i = 0; i < block; i++) {
          long start = System.nanoTime();
          c.work().run();
          double elapsed = (System.nanoTime() - start) / 1e6;
          if (round >= 0) {
            out[round * block + i] = elapsed;
          }
          afterRun.run();
        }
      }
    }
    List<Measurement> result = new ArrayList<>();
    ms.forEach((c, values) -> result.add(new Measurement(c.name(), c.baseline(), values)));
    return result;
  }
}
