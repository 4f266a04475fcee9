package org.dp4j.samples.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import org.bytedeco.javacpp.Pointer;

/**
 * Peak memory of a benchmark section: Java heap (sum of the heap pools' peak usage since {@link #reset}) and
 * off-heap, as the highest values seen by {@link #sample} of the native bytes JavaCPP tracks (ND4J arrays and
 * workspaces) and of the process' resident set. Sampling after every step misses peaks inside a step, so these
 * are lower bounds of the true peaks (the ND4J workspaces persist across steps, so they are seen).
 */
final class MemoryHighWater {
  private long offHeap;
  private long resident;

  void reset() {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
    offHeap = Pointer.totalBytes();
    resident = Pointer.physicalBytes();
  }

  void sample() {
    offHeap = Math.max(offHeap, Pointer.totalBytes());
    resident = Math.max(resident, Pointer.physicalBytes());
  }

  long peakHeapBytes() {
    return ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP)
        .mapToLong(p -> p.getPeakUsage().getUsed()).sum();
  }

  long peakOffHeapBytes() {
    return offHeap;
  }

  long peakResidentBytes() {
    return resident;
  }
}
