package org.dp4j.spark;

/**
 * A DP-SGD step failed on the cluster as many times as allowed and training stopped: the step was not applied and
 * not counted; the ledger counts exactly the steps applied before it, and the model holds their result.
 */
public final class DistributedStepException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DistributedStepException(String message, Throwable cause) {
    super(message, cause);
  }
}
