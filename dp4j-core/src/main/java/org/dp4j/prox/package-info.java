/**
 * Proximal operators of the regularisers DP-MBCD's proximal updates use (L1, L2 norm, squared L2, projections onto
 * a ball or a box), each with its closed form.
 */
package org.dp4j.prox;
