/**
 * The privacy ledger of a training run: {@link org.dp4j.accounting.ledger.StepAccountant} is the one contract every
 * accountant a training loop advances implements (docs/architecture.md#contract-accountant);
 * {@link org.dp4j.accounting.ledger.PrivacyLedger} steps its accountants, stops exactly before the
 * {@link org.dp4j.accounting.ledger.PrivacyBudget} would be exceeded and keeps one
 * {@link org.dp4j.accounting.ledger.LedgerRow} per epoch. Composition accounting by PLD (the default) or RDP is chosen
 * with {@link org.dp4j.accounting.ledger.CompositionAccounting}.
 */
package org.dp4j.accounting.ledger;
