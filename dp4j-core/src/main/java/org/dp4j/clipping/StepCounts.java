package org.dp4j.clipping;

import java.util.function.IntSupplier;

/** The network's iteration and epoch counters, which dropout schedules read (as DL4J's layers do). */
interface StepCounts {
  int iteration();

  int epoch();

  static StepCounts of(IntSupplier iteration, IntSupplier epoch) {
    return new StepCounts() {
      @Override
      public int iteration() {
        return iteration.getAsInt();
      }

      @Override
      public int epoch() {
        return epoch.getAsInt();
      }
    };
  }
}
