package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.NeighbouringRelation;

/**
 * Whom a guarantee protects: one record or one user with up to k records, under add/remove or
 * replace-one neighbours. The accountants here analyse add/remove of one record; every other unit is
 * reached by group privacy over a path of add/remove steps: a user with k records is k add/remove
 * steps away, and replacing records is removing then adding, so replace-one of a k-record user is a
 * path of 2k steps. There is no general conversion the other way (replace-one bounds say nothing
 * about datasets of different sizes).
 *
 * <pre>{@code
 * PrivacyUnit user = PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 5);   // 5 examples per user
 * int d = user.addRemoveDistance();                                          // 5
 * }</pre>
 *
 * @param relation neighbouring relation between datasets of units
 * @param recordsPerUser k ≥ 1 records each unit may contribute (1 = record-level)
 */
public record PrivacyUnit(NeighbouringRelation relation, int recordsPerUser) {
  /** Record-level, add/remove: what the accountants analyse directly. */
  public static final PrivacyUnit RECORD = new PrivacyUnit(NeighbouringRelation.ADD_REMOVE, 1);

  public PrivacyUnit {
    checkNotNull(relation, "relation");
    checkArgument(recordsPerUser >= 1, "records per user must be >= 1, was %s", recordsPerUser);
  }

  public static PrivacyUnit user(NeighbouringRelation relation, int recordsPerUser) {
    return new PrivacyUnit(relation, recordsPerUser);
  }

  /** Length of the shortest path of add/remove-one steps between neighbouring datasets of this unit. */
  public int addRemoveDistance() {
    return relation == NeighbouringRelation.REPLACE_ONE ? Math.multiplyExact(2, recordsPerUser) : recordsPerUser;
  }

  public boolean isRecordLevelAddRemove() {
    return addRemoveDistance() == 1;
  }

  public String description() {
    return relation.description() + (recordsPerUser == 1 ? "" : ", user-level with up to " + recordsPerUser
        + " records per user (group privacy over " + addRemoveDistance() + " add/remove steps)");
  }
}
