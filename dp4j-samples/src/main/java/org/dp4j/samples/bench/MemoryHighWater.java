package org.dp4j.samples.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Peak memory of running one kind of step alone: Java heap (sum of the heap pools' peak usage, which includes
 * whatever else is live), growth of the process' resident set over the runs (off-heap native memory that ND4J
 * and BLAS took; sampled after each run, so a lower bound of the true peak, and attributable only to the first
 * kind of step measured in a process section, since native memory is rarely returned), and the bytes held by
 * the thread's ND4J workspaces afterwards.
 */
final class MemoryHighWater {
  private MemoryHighWater() {}

  static Map<String, Object> measure(Runnable step, int runs) {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
    long residentBefore = Pointer.physicalBytes();
    long resident = residentBefore;
    for (int i = 0; i < runs; i++) {
      step.run();
      resident = Math.max(resident, Pointer.physicalBytes());
    }
    long heap = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP)
        .mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    long workspaces = Nd4j.getWorkspaceManager().getAllWorkspacesForCurrentThread().stream()
        .mapToLong(MemoryWorkspace::getCurrentSize).sum();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("peakHeapBytes", heap);
    m.put("residentGrowthBytes", resident - residentBefore);
    m.put("residentBytes", resident);
    m.put("workspaceBytesAfter", workspaces);
    return m;
  }
}
