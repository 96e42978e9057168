import type { Kysely } from 'kysely';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { eip3009ABI } from '@x402/evm';
import { erc20Abi, getAddress, parseEventLogs, type PublicClient } from 'viem';
import type { StoredInvoice, X402PaymentRequired } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { PayableFacts } from '../invoices/invoice.service.ts';
import { checkPayment, refused, refusalReasons, type CheckedPayment } from './authorization.ts';
import { paymentRequiredOf, requirementsOf, type X402Offer } from './requirements.ts';
import { claimSettlement, settleClaim, STALE_LOCK_MS, type X402SettlementRow } from './settlement.repository.ts';
import { networkOf, type X402Settler } from './settlers.ts';
import type { X402Tables } from './x402.tables.ts';

/** One EVM chain on which invoices take x402 payments. */
export interface X402Chain {
  chainId: number;
  /** Our own node: receipts, the token's domain, nonces. The settler's word is checked here. */
  reader: PublicClient;
  settler: X402Settler;
}

/** How x402 reports, for /metrics. */
export interface X402Observer {
  settlement(chain: string, outcome: 'sent' | 'refused' | 'unavailable' | 'failed' | 'unseen' | 'replayed'): void;
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

const PAYABLE_ASSET = 'USDC';
const RECEIPT_POLL_MS = 200;

/**
 * x402 as a payment method of USDC invoices: the 402 quote, the checks, the one-payer lock, the
 * settlement through the chain's settler, and the receipt read on our own node. The invoice itself
 * moves only through the chain watcher, as for any transfer.
 */
export function createX402Payments(deps: X402PaymentsDeps) {
  const { db, clock, logger } = deps;
  const domains = new Map<string, Promise<{ name: string; version: string }>>();

  /** The token's EIP-712 domain as the token itself says (Circle's USDC: "USD Coin", "2"). */
  function domainOf(chain: X402Chain, token: string) {
    const key = `${chain.chainId}:${token}`;
    let domain = domains.get(key);
    if (!domain) {
      const address = getAddress(token);
      domain = Promise.all([
        chain.reader.readContract({ address, abi: eip3009ABI, functionName: 'name' }),
        chain.reader.readContract({ address, abi: eip3009ABI, functionName: 'version' }),
      ]).then(([name, version]) => ({ name: String(name), version: String(version) }));
      domains.set(key, domain);
      // A node that failed once is asked again next time.
      domain.catch(() => domains.delete(key));
    }
    return domain;
  }

  const chainOf = (facts: { chain: string; asset: string }) => (facts.asset === PAYABLE_ASSET ? deps.chains.get(facts.chain) : undefined);

  /** Whether x402 can pay the invoice as it stands: its URL, or null. */
  function x402Url(invoice: PayableFacts): string | null {
    if (!chainOf(invoice) || (invoice.status !== 'pending' && invoice.status !== 'partial')) return null;
    if (Date.parse(invoice.expires_at) <= clock.now()) return null;
    return deps.resourceUrl(invoice.invoice_id);
  }

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
      currentLock(invoiceId),
    ]);
    const due = BigInt(row.amount_units) - seen;
    if (due <= 0n) throw new ServiceError('invoice_paid', 'A payment covering this invoice is confirming.');
    const offer: X402Offer = { invoiceId, network: networkOf(chain.chainId), chainId: chain.chainId, asset: getAddress(row.token_address), payTo: getAddress(row.receive_address), amountDue: due, expiresAt: row.expires_at, domain };
    return { row, chain, offer, resource, lock };
  }

  /** The lock's state, for a payer who did not take it. */
  function lockRefusal(current: X402SettlementRow): ServiceError {
    if (current.state === 'sent') return new ServiceError('invoice_paid', 'A payment covering this invoice was settled and is confirming.');
    if (current.state === 'unseen') return new ServiceError('payment_in_progress', 'A settlement of this invoice was reported but is not on the chain; the merchant has been told.');
    return new ServiceError('payment_in_progress', "Another payer's authorization is being settled for this invoice; nothing was sent for yours.");
  }

  /** The lock that holds the invoice now: a settlement sent or unseen, or one under way (a stale one no longer holds it). */
  async function currentLock(invoiceId: string) {
    const staleBefore = clock.now() - STALE_LOCK_MS;
    return db
      .selectFrom('x402_settlements')
      .selectAll()
      .where('invoice_id', '=', invoiceId)
      .where((eb) => eb.or([eb('state', 'in', ['sent', 'unseen']), eb.and([eb('state', '=', 'settling'), eb('updated_at', '>=', staleBefore)])]))
      .executeTakeFirst();
  }

  /** The answer to a request without payment: the requirements (or why there are none). */
  async function quote(invoiceId: string): Promise<X402Quote & { requirements: PaymentRequirements }> {
    const { offer, resource, lock } = await offerOf(invoiceId);
    if (lock) throw lockRefusal(lock);
    const requirements = requirementsOf(offer, clock.now());
    return { requirements, paymentRequired: paymentRequiredOf(resource, requirements) };
  }

  /** The transfer the settler reported, as our own node shows it; null when it does not (yet). */
  async function minedTransfer(chain: X402Chain, txHash: string, checked: CheckedPayment, requirements: PaymentRequirements) {
    // Counted in polls, not read off the clock: the wait is real time whatever clock the service runs on.
    for (let poll = Math.ceil(deps.receiptWaitMs / RECEIPT_POLL_MS); ; poll--) {
      const receipt = await chain.reader.getTransactionReceipt({ hash: txHash as `0x${string}` }).catch(() => null);
      if (receipt) {
        if (receipt.status !== 'success') return 'reverted' as const;
        const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
        const paid = transfers.some(
          (log) =>
            getAddress(log.address) === getAddress(requirements.asset) &&
            getAddress(log.args.to) === getAddress(requirements.payTo) &&
            getAddress(log.args.from) === checked.payer &&
            log.args.value === BigInt(requirements.amount),
        );
        return paid ? ('paid' as const) : ('other' as const);
      }
      if (poll <= 0) return null;
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }

  /** The same payload again after it was settled: the first answer again (idempotent on the authorization nonce). */
  async function earlierAnswer(invoiceId: string, payload: PaymentPayload): Promise<X402Paid | null> {
    const nonce = (payload?.payload as { authorization?: { nonce?: unknown } } | undefined)?.authorization?.nonce;
    if (typeof nonce !== 'string') return null;
    const lock = await currentLock(invoiceId);
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
  async function pay(invoiceId: string, payload: PaymentPayload): Promise<X402Paid> {
    const earlier = await earlierAnswer(invoiceId, payload);
    if (earlier) return earlier;
    const { row, chain, offer } = await offerOf(invoiceId);
    const requirements = requirementsOf(offer, clock.now());
    const checked = await checkPayment(payload, requirements, { now: clock.now(), expiresAt: offer.expiresAt, chainId: offer.chainId });
    const { nonce } = checked.authorization;
    const lock = await claimSettlement(db, { invoiceId, merchantId: row.merchant_id, payer: checked.payer, nonce, network: offer.network, now: clock.now() });
    if (!lock.claimed) throw lockRefusal(lock.current);

    const log = logger.child({ invoice_id: invoiceId, chain: row.chain, payer: checked.payer });
    // What the lock becomes: `settling` (kept) once the settler may have sent the transaction.
    let lockState: 'refused' | 'settling' | 'sent' | 'unseen' = 'refused';
    let outcome: Parameters<X402Observer['settlement']>[1] = 'refused';
    let txHash: string | undefined;
    try {
      // Both only read: asked together.
      const [used, verified] = await Promise.all([
        chain.reader.readContract({ address: getAddress(requirements.asset), abi: eip3009ABI, functionName: 'authorizationState', args: [checked.payer, nonce] }).catch((error: unknown) => {
          outcome = 'unavailable';
          log.warn('x402: the node cannot say whether the nonce is used', { error });
          throw unavailable('The chain node does not answer.');
        }),
        chain.settler.verify(payload, requirements).catch((error: unknown) => {
          outcome = 'unavailable';
          log.warn('x402: verify failed', { error, settler: chain.settler.kind });
          throw unavailable('The settler does not answer.');
        }),
      ]);
      if (used) throw refused(refusalReasons.nonceUsed, 'This authorization nonce is already used on the chain.');
      if (!verified.isValid) {
        throw new ServiceError('invalid_payment', `The settler refused the payment: ${verified.invalidMessage ?? verified.invalidReason ?? 'invalid'}.`, {
          details: { reason: verified.invalidReason ?? 'invalid_payment' },
        });
      }
      lockState = 'settling';
      const settled = await chain.settler.settle(payload, requirements).catch((error: unknown) => {
        // Whether it was sent is unknown: the lock stays with this payload (see STALE_LOCK_MS).
        outcome = 'unavailable';
        log.warn('x402: settle failed', { error, settler: chain.settler.kind });
        throw unavailable('The settler did not answer in time.');
      });
      if (!settled.success || !/^0x[0-9a-fA-F]{64}$/.test(settled.transaction ?? '')) {
        // A refusal at settle sends nothing, or a transaction that reverted (the nonce stays unused).
        lockState = 'refused';
        outcome = 'failed';
        throw new ServiceError('settlement_failed', `The settlement failed: ${settled.errorMessage ?? settled.errorReason ?? 'no transaction'}.`);
      }
      txHash = settled.transaction;
      const seen = await minedTransfer(chain, txHash, checked, requirements);
      if (seen !== 'paid') {
        lockState = seen === 'reverted' ? 'refused' : 'unseen';
        outcome = seen === 'reverted' ? 'failed' : 'unseen';
        log.error('x402: the settler reported a transaction the chain does not show as this payment', { tx_hash: txHash, seen: seen ?? 'not found', settler: chain.settler.kind });
        throw new ServiceError('settlement_failed', `The settlement transaction ${txHash} is not on the chain as this payment; the invoice stays pending.`);
      }
      lockState = 'sent';
      outcome = 'sent';
      log.info('x402: settled', { tx_hash: txHash });
      return { response: settledResponse(txHash, offer.network, checked.payer, requirements.amount), invoice: await deps.invoice(row) };
    } finally {
      deps.observer?.settlement(row.chain, outcome);
      if (lockState !== 'settling') await settleClaim(db, invoiceId, nonce, { state: lockState, txHash, now: clock.now() });
    }
  }

  return { x402Url, quote, pay };
}

/** `amount`: what was paid, when this answer is the settlement's own (a replay leaves it out). */
function settledResponse(transaction: string, network: string, payer: string, amount?: string): SettleResponse {
  return { success: true, transaction, network: network as SettleResponse['network'], payer, ...(amount !== undefined && { amount }) };
}

const unavailable = (message: string) => new ServiceError('settlement_unavailable', message, { retryAfterS: 5 });

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
