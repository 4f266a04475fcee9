package org.dp4j.accounting.ledger;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ThreatModel;

/**
 * What the composition accountants over a shuffle-once fixed partition share
 * ({@link FixedPartitionCompositionStepAccountant} for DP-SGD, {@link BlockGaussianCompositionStepAccountant} for
 * noisy block updates): the partition of m·b records into m batches of b, the steps taken, and the scope of the
 * bound — every iterate released, replace-one neighbours.
 */
abstract class FixedPartitionRdpAccountant implements RdpStepAccountant {
  private final String name;
  private final String theorem;
  final int usableRecords;
  final int batchSize;
  final int stepsPerEpoch;
  private long steps;

  FixedPartitionRdpAccountant(String name, String theorem, int usableRecords, int batchSize) {
    checkPartition(usableRecords, batchSize);
    this.name = name;
    this.theorem = theorem;
    this.usableRecords = usableRecords;
    this.batchSize = batchSize;
    this.stepsPerEpoch = usableRecords / batchSize;
  }

  /** Refuses a partition that is not m ≥ 1 batches of b ≥ 1 records. */
  static void checkPartition(int usableRecords, int batchSize) {
    checkArgument(batchSize >= 1, "batch size b must be >= 1, was %s", batchSize);
    checkArgument(usableRecords >= batchSize && usableRecords % batchSize == 0,
        "usable records must be a positive multiple of the batch size b = %s, was %s", batchSize, usableRecords);
  }

  /** Accounts the {@code count} steps after the first {@code steps()}; called before they are counted. */
  abstract void accountSteps(long count);

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String theorem() {
    return theorem;
  }

  @Override
  public final ThreatModel threatModel() {
    return ThreatModel.ALL_ITERATES_RELEASED;
  }

  @Override
  public final NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  @Override
  public final long steps() {
    return steps;
  }

  /** The step count after {@code more} further steps, refusing a negative {@code more}. */
  final long stepsAfter(long more) {
    checkArgument(more >= 0, "steps must be >= 0, was %s", more);
    return steps + more;
  }

  @Override
  public final void advance(long count) {
    checkArgument(count >= 0, "steps must be >= 0, was %s", count);
    accountSteps(count);
    steps += count;
  }
}
