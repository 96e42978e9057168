import type { Kysely } from 'kysely';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { getAddress } from 'viem';
import type { StoredInvoice, X402PaymentRequired } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { PayableFacts } from '../invoices/invoice.service.ts';
import { checkPayment } from './authorization.ts';
import { paymentRequiredOf, requirementsOf, type X402Offer } from './requirements.ts';
import { addSettlerGas, claimSettlement, currentLock, releaseLapsed, settleClaim, type X402SettlementRow } from './settlement.repository.ts';
import { checkGasBudget } from './gas-budget.ts';
import { networkOf } from './settlers.ts';
import { tokenDomains } from './token-domains.ts';
import { x402Method } from './x402-method.ts';
import { authorizationLapsed, settleAuthorization, unavailable, type SettlementProgress, type X402Chain, type X402Outcome } from './x402-settle.ts';
import type { X402Tables } from './x402.tables.ts';
import type { X402Settings } from './x402-settings.ts';

export type { X402Chain } from './x402-settle.ts';

/** How x402 reports, for /metrics. */
export interface X402Observer {
  settlement(chain: string, outcome: X402Outcome): void;
  /** Gas the built-in settler spent on one settlement transaction, and whether it reverted. */
  settlerGas?(chain: string, gas: bigint, reverted: boolean): void;
}

export interface X402PaymentsDeps {
  db: Kysely<CoreTables & X402Tables>;
  clock: Clock;
  logger: Logger;
  /** By chain name. */
  chains: ReadonlyMap<string, X402Chain>;
  /** The invoice behind a public x402 URL (its edition's lookup, expiry on read included). */
  find(invoiceId: string): Promise<InvoiceRow>;
  /** Token units seen toward an invoice so far (its chain module's count). */
  paidSoFar(row: InvoiceRow): Promise<bigint>;
  /** The invoice in the contract's shape, for the paid answer. */
  invoice(row: InvoiceRow): Promise<StoredInvoice>;
  /** The public x402 URL of an invoice; null when the service does not know its own public address. */
  resourceUrl(invoiceId: string): string | null;
  observer?: X402Observer;
  /** How long the settlement transaction may take to show on our node after the settler answers. */
  receiptWaitMs: number;
  /** The built-in settler's gas budget per chain (X402_SETTLER_GAS_BUDGET); a facilitator pays its own. */
  settlerGasBudget: X402Settings['gasBudget'];
}


/** The answer to a paid request: PAYMENT-RESPONSE and the invoice. */
export interface X402Paid {
  response: SettleResponse;
  invoice: StoredInvoice;
}

/** The invoice's answer to an unpaid request. */
export interface X402Quote {
  paymentRequired: PaymentRequired;
}

/**
 * x402 as a payment method of USDC invoices (x402-method.ts): the 402 quote, the checks, the
 * one-payer lock, the settlement through the chain's settler (x402-settle.ts), and the receipt read
 * on our own node. The invoice itself moves only through the chain watcher, as for any transfer.
 */
export function createX402Payments(deps: X402PaymentsDeps) {
  const { db, clock, logger } = deps;
  const domainOf = tokenDomains();
  const method = x402Method({ chains: deps.chains, now: () => clock.now(), resourceUrl: deps.resourceUrl });
  const chainOf = (facts: { chain: string; asset: string }) => (method.offers(deps.chains.get(facts.chain), facts.asset) ? deps.chains.get(facts.chain) : undefined);

  /** Whether x402 can pay the invoice as it stands: its URL, or null. */
  const x402Url = (invoice: PayableFacts): string | null => method.urlOf({ ...invoice, expiresAt: Date.parse(invoice.expires_at) });

  /** The invoice's current offer, or the refusal that says why it has none. */
  async function offerOf(invoiceId: string): Promise<{ row: InvoiceRow; chain: X402Chain; offer: X402Offer; resource: string; lock: X402SettlementRow | undefined }> {
    const row = await deps.find(invoiceId);
    const chain = chainOf(row);
    const resource = deps.resourceUrl(invoiceId);
    if (!chain || !resource || row.token_address === null || row.amount_units === null) {
      throw new ServiceError('x402_unavailable', 'This invoice cannot be paid with x402 (only USDC invoices on an EVM chain with settlement set up can).');
    }
    if (row.status === 'confirmed') throw new ServiceError('invoice_paid', 'This invoice is paid.');
    if (row.status !== 'pending' && row.status !== 'partial') throw new ServiceError('invoice_ended', `This invoice is ${row.status}.`);
    if (row.expires_at <= clock.now()) throw new ServiceError('invoice_ended', 'This invoice has expired.');
    const [seen, domain, lock] = await Promise.all([
      deps.paidSoFar(row),
      domainOf(chain, row.token_address).catch((error: unknown) => {
        logger.warn('x402: the token domain cannot be read from the node', { error, invoice_id: invoiceId });
        throw unavailable('The chain node does not answer.');
      }),
      holdingLock(chain, row.token_address, invoiceId),
    ]);
    const due = BigInt(row.amount_units) - seen;
    if (due <= 0n) throw new ServiceError('invoice_paid', 'A payment covering this invoice is confirming.');
    const offer: X402Offer = { invoiceId, network: networkOf(chain.chainId), chainId: chain.chainId, asset: getAddress(row.token_address), payTo: getAddress(row.receive_address), amountDue: due, expiresAt: row.expires_at, domain };
    return { row, chain, offer, resource, lock };
  }

  /**
   * The lock that holds the invoice now. A settle that never answered holds it for as long as its
   * authorization can be mined; once our node shows it cannot (x402-settle.ts), the lock is
   * released and another payer may pay.
   */
  async function holdingLock(chain: X402Chain, asset: string, invoiceId: string): Promise<X402SettlementRow | undefined> {
    const lock = await currentLock(db, invoiceId);
    if (lock?.state !== 'settling' || !(await authorizationLapsed(chain, asset, lock, clock.now()))) return lock;
    if (await releaseLapsed(db, lock, clock.now())) logger.warn('x402: a settle that never answered lapsed unmined; the invoice may be paid again', { invoice_id: invoiceId, nonce: lock.nonce });
    return currentLock(db, invoiceId);
  }

  /** The answer to a request without payment: the requirements (or why there are none). */
  async function quote(invoiceId: string): Promise<X402Quote & { requirements: PaymentRequirements }> {
    const { offer, resource, lock } = await offerOf(invoiceId);
    if (lock) throw lockRefusal(lock);
    const requirements = requirementsOf(offer, clock.now());
    return { requirements, paymentRequired: paymentRequiredOf(resource, requirements) };
  }

  /** The same payload again after it was settled: the first answer again (idempotent on the authorization nonce). */
  async function earlierAnswer(invoiceId: string, payload: unknown): Promise<X402Paid | null> {
    const nonce = nonceOf(payload);
    if (nonce === null) return null;
    const lock = await currentLock(db, invoiceId);
    if (!lock || lock.state !== 'sent' || lock.nonce !== nonce || !lock.tx_hash) return null;
    const row = await deps.find(invoiceId);
    deps.observer?.settlement(row.chain, 'replayed');
    return { response: settledResponse(lock.tx_hash, lock.network, lock.payer), invoice: await deps.invoice(row) };
  }

  /**
   * The answer to a request with PAYMENT-SIGNATURE: every check first, then the invoice's lock,
   * the nonce on the chain, the settler's verify and settle, and the transfer read back from our
   * own node. Nothing is sent unless every check passed; the invoice is not marked here.
   */
  async function pay(invoiceId: string, payload: unknown): Promise<X402Paid> {
    const earlier = await earlierAnswer(invoiceId, payload);
    if (earlier) return earlier;
    const { row, chain, offer } = await offerOf(invoiceId);
    const requirements = requirementsOf(offer, clock.now());
    const checked = await checkPayment(payload, requirements, { now: clock.now(), expiresAt: offer.expiresAt, chainId: offer.chainId });
    const { nonce } = checked.authorization;
    await checkGasBudget({ db, now: clock.now(), logger, budget: deps.settlerGasBudget }, chain, offer);
    const claim = { invoiceId, merchantId: row.merchant_id, payer: checked.payer, nonce, validBefore: Number(checked.validBefore), network: offer.network, now: clock.now() };
    const lock = await claimSettlement(db, claim);
    if (!lock.claimed) throw lockRefusal(lock.current);

    const log = logger.child({ invoice_id: invoiceId, chain: row.chain, payer: checked.payer });
    const progress: SettlementProgress = { lockState: 'refused', outcome: 'refused' };
    try {
      // The payload as checked, rebuilt (authorization.ts): the settler gets nothing the checks did not read.
      const txHash = await settleAuthorization({ row, chain, payload: checked.payload, requirements, checked, method, log, receiptWaitMs: deps.receiptWaitMs }, progress);
      return { response: settledResponse(txHash, offer.network, checked.payer, requirements.amount), invoice: await deps.invoice(row) };
    } finally {
      deps.observer?.settlement(row.chain, progress.outcome);
      if (progress.gasUsed !== undefined && chain.settler.kind === 'settler') {
        deps.observer?.settlerGas?.(row.chain, progress.gasUsed, progress.reverted === true);
        await addSettlerGas(db, invoiceId, Number(progress.gasUsed), clock.now());
      }
      if (progress.lockState !== 'settling') await settleClaim(db, invoiceId, nonce, { state: progress.lockState, txHash: progress.txHash, now: clock.now() });
    }
  }

  return { x402Url, quote, pay };
}

/** The authorization nonce a payload names, if it names one (read before any check, for the replay answer). */
function nonceOf(payload: unknown): string | null {
  const inner = typeof payload === 'object' && payload !== null ? (payload as { payload?: unknown }).payload : undefined;
  const authorization = typeof inner === 'object' && inner !== null ? (inner as { authorization?: unknown }).authorization : undefined;
  const nonce = typeof authorization === 'object' && authorization !== null ? (authorization as { nonce?: unknown }).nonce : undefined;
  return typeof nonce === 'string' ? nonce : null;
}

/** The lock's state, for a payer who did not take it. */
function lockRefusal(current: X402SettlementRow): ServiceError {
  if (current.state === 'sent') return new ServiceError('invoice_paid', 'A payment covering this invoice was settled and is confirming.');
  if (current.state === 'unseen') return new ServiceError('payment_in_progress', 'A settlement of this invoice was reported but is not on the chain; the merchant has been told.');
  return new ServiceError('payment_in_progress', "Another payer's authorization is being settled for this invoice; nothing was sent for yours.");
}

/** `amount`: what was paid, when this answer is the settlement's own (a replay leaves it out). */
function settledResponse(transaction: string, network: string, payer: string, amount?: string): SettleResponse {
  return { success: true, transaction, network: network as SettleResponse['network'], payer, ...(amount !== undefined && { amount }) };
}

export type X402Payments = ReturnType<typeof createX402Payments>;

/** The requirements an invoice's x402_url answers with now, or null when x402 cannot pay it (any refusal). */
export const x402RequirementsOf =
  (payments: Pick<X402Payments, 'quote'>) =>
  async (invoiceId: string): Promise<X402PaymentRequired | null> => {
    try {
      return (await payments.quote(invoiceId)).paymentRequired as X402PaymentRequired;
    } catch (error) {
      if (error instanceof ServiceError) return null;
      throw error;
    }
  };
