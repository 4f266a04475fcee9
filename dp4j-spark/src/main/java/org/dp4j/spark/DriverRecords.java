package org.dp4j.spark;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;

/**
 * Records held by the driver (a demonstration, a test, the CLI) as a persisted RDD: broadcast once and cut into
 * partitions on the executors. {@code sc.parallelize(records)} would instead serialise a partition's records into
 * every task that reads it — every step of a training run, even when the RDD is cached. Data that live on the cluster
 * should be read there instead ({@code sc.textFile}, a Dataset, …) and mapped to {@link LabelledRecord}s.
 *
 * <pre>{@code
 * // given: JavaSparkContext sc; List<LabelledRecord> records
 * JavaRDD<LabelledRecord> data = DriverRecords.distribute(sc, records, sc.defaultParallelism());
 * }</pre>
 */
public final class DriverRecords {
  private DriverRecords() {
  }

  /**
   * The records in {@code partitions} contiguous, persisted (memory only) partitions. The broadcast stays until the
   * context stops (Spark needs it to recompute a lost partition); {@code unpersist} the RDD when done.
   */
  public static JavaRDD<LabelledRecord> distribute(JavaSparkContext sc, List<LabelledRecord> records,
      int partitions) {
    checkArgument(!records.isEmpty(), "no records to distribute");
    checkArgument(partitions > 0, "partitions must be > 0, was %s", partitions);
    Broadcast<List<LabelledRecord>> all = sc.broadcast(List.copyOf(records));
    int n = records.size();
    List<Integer> ids = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ids.add(p);
    }
    return sc.parallelize(ids, partitions)
        .flatMap(p -> all.value().subList((int) ((long) n * p / partitions), (int) ((long) n * (p + 1) / partitions))
            .iterator())
        .persist(StorageLevel.MEMORY_ONLY());
  }
}
