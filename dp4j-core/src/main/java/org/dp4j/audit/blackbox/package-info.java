/**
 * Black-box auditing, where the auditor sees only the final model: input-space canaries (mislabelled or
 * out-of-distribution records added to the training data) scored by their loss under the released model
 * ({@link org.dp4j.audit.blackbox.InputCanaries}).
 */
package org.dp4j.audit.blackbox;
