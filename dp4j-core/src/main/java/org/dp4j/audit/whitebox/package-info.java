/**
 * White-box auditing, where the auditor sees every iterate: gradient-space "Dirac" canaries of norm C on quiet
 * coordinates, injected through the run's own noise source so that the production trainers run unchanged, and scored
 * by the observed updates along each canary's coordinate ({@link org.dp4j.audit.whitebox.WhiteBoxAudit}).
 */
package org.dp4j.audit.whitebox;
