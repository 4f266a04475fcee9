/**
 * Typed descriptions of mechanisms ({@link org.dp4j.accounting.event.DpEvent}: Gaussian, Poisson-sampled, composed,
 * self-composed) and the accountants that answer for them ({@link org.dp4j.accounting.event.EventAccountant}: RDP and
 * PLD), in the spirit of Google's dp_accounting; an accountant refuses an event it does not cover with
 * {@link org.dp4j.accounting.event.UnsupportedEventException}. Group privacy and the privacy unit (example or user)
 * live here too.
 */
package org.dp4j.accounting.event;
