package org.dp4j.spark;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.io.Serializable;

/**
 * One training record of a distributed data set: its features (flattened, in the layout of the network's input) and
 * its label vector (one-hot for classification). The unit of privacy: neighbouring data sets differ by one record
 * (add/remove). Immutable by convention: the arrays are not copied (records are many), do not change them.
 *
 * <pre>{@code
 * // given: org.apache.spark.api.java.JavaSparkContext sc
 * org.apache.spark.api.java.JavaRDD<LabelledRecord> data = sc.parallelize(List.of(new LabelledRecord(new float[] {0.1f, 0.2f},
 *     new float[] {1, 0})));
 * }</pre>
 */
public record LabelledRecord(float[] features, float[] labels) implements Serializable {
  public LabelledRecord {
    checkArgument(features != null && features.length > 0, "features must not be empty");
    checkArgument(labels != null && labels.length > 0, "labels must not be empty");
  }
}
