import { invoiceShopFields } from '../invoices/shop-fields.ts';
import type { Kysely } from 'kysely';
import type { InvoiceConfirmedEvent, PaymentOrphanEvent, WebhookEventContent } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import { enqueueEvents, type NewEvent } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { WatchObserver } from '../watch-progress.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { unitsToDecimal } from '../invoices/token-amount.ts';
import { appliedUnits, confirmOpenInvoice, leaveSeen, OPEN, readyTransfers, retimeTransfer, type EvmInvoiceRow, type EvmWatchScope, type TransferRow } from './evm-transfer.repository.ts';
import type { EvmPaymentMethod } from './methods/evm-method.ts';
import { evmMethodOfClaim } from './methods/evm-methods.ts';
import { askSource, evmVerification, judge, type Disagreement, type ObservedTransfer } from './agreement.ts';
import type { RpcSource } from './rpc.ts';
import { askBlockTimes, judgeBlockTime } from './block-times.ts';

export interface SettlementDeps {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  scope: EvmWatchScope;
  /** Whether the address is the merchant's fixed receive address (exact-amount matching). */
  isFixed: (merchantId: string, address: string) => boolean;
  confirmations: number;
  /** Sources that must report a transfer (xpub mode); fixed-address matches always need two. */
  minSources: number;
  /** Every source that may vote (none refused): each is asked about the ready transfers (receipts, and block headers where verifiedTransfers needs them). */
  sources: RpcSource[];
  /** A source reported what the others do not (or did not report what they do). */
  disagreed: (disagreement: Disagreement) => void;
  /** The finalized block the sources agree on when the chain's finality rule reads it: nothing above it settles. */
  finalized: number | null;
  /** Checksummed token contract → asset name (USDC, USDT). */
  assetByToken: ReadonlyMap<string, string>;
  /** When the watcher read the head that confirmations are counted against. */
  headSeenAt: number;
  observer?: Pick<WatchObserver, 'transition' | 'settled' | 'confirmedAfterBlock'>;
}

/** What becomes of one ready transfer. */
export type TransferDecision =
  | { kind: 'confirm'; transfer: TransferRow; invoice: EvmInvoiceRow; verification: string }
  | { kind: 'apply'; transfer: TransferRow; invoice: EvmInvoiceRow }
  | { kind: 'ignore'; transfer: TransferRow; invoiceId: string | null }
  | { kind: 'orphan'; transfer: TransferRow };

/** What the database and the other sources said about the ready transfers, read before planning. */
export interface SettlementFacts {
  /** The payment method that settles a transfer: the one whose receive addresses hold its address's claim. */
  methodOf: (transfer: TransferRow) => EvmPaymentMethod;
  /** The invoice each transfer may pay, as its method found it. */
  candidates: ReadonlyMap<TransferRow, EvmInvoiceRow>;
  /** Units already applied, by `merchant\ninvoice`. */
  applied: ReadonlyMap<string, bigint>;
  /** How the transfer was verified when enough sources report it, by transfer key; absent: it waits if it would pay or be reported. */
  verified: ReadonlyMap<string, string>;
}

const invoiceKey = (invoice: { merchant_id: string; invoice_id: string }) => `${invoice.merchant_id}\n${invoice.invoice_id}`;
export const transferKey = (t: Pick<TransferRow, 'merchant_id' | 'tx_hash' | 'log_index'>) => `${t.merchant_id}\n${t.tx_hash}\n${t.log_index}`;

/**
 * Decides every ready transfer in chain order, as if settled one by one, by the matching rule of
 * the method its address belongs to: a transfer completing an invoice confirms it, and a later one
 * to the same invoice pays nothing (transfers that add up) or is an orphan (exact amounts). A
 * transfer too few sources report yet waits, whatever its method. Pure.
 */
export function planSettlement(ready: readonly TransferRow[], facts: SettlementFacts): { decisions: TransferDecision[]; awaiting: number } {
  const decisions: TransferDecision[] = [];
  const confirmed = new Set<string>();
  const applied = new Map(facts.applied);
  let awaiting = 0;
  for (const transfer of ready) {
    const method = facts.methodOf(transfer);
    const verification = facts.verified.get(transferKey(transfer));
    const invoice = facts.candidates.get(transfer);
    const counts = invoice && OPEN.includes(invoice.status) && !confirmed.has(invoiceKey(invoice)) && method.matches(invoice, transfer);
    // An exact amount is reported even when it pays nothing, so it waits for its sources first.
    if (verification === undefined && (counts || method.exactAmount)) {
      awaiting++;
      continue;
    }
    if (!counts) {
      decisions.push(method.exactAmount ? { kind: 'orphan', transfer } : { kind: 'ignore', transfer, invoiceId: invoice?.invoice_id ?? null });
      continue;
    }
    const paid = method.exactAmount ? BigInt(transfer.value) : (applied.get(invoiceKey(invoice)) ?? 0n) + BigInt(transfer.value);
    applied.set(invoiceKey(invoice), paid);
    if (paid >= BigInt(invoice.amount_units!)) {
      confirmed.add(invoiceKey(invoice));
      decisions.push({ kind: 'confirm', transfer, invoice, verification: verification! });
    } else {
      decisions.push({ kind: 'apply', transfer, invoice });
    }
  }
  return { decisions, awaiting };
}

/**
 * Settles recorded transfers of the scope's merchants that reached the required confirmations on
 * the head the sources agree on. A transfer pays an invoice only if its block's timestamp (as the sources
 * agree on it) is not after the invoice's expiry, nor, at a fixed address, before its creation
 * less CHAIN_CLOCK_SKEW_MS. The pass is read, planned, then written in one transaction with its events;
 * each transfer row leaves `seen` exactly once (guarded), so a payment is never credited twice,
 * and each row is its own merchant's, so one merchant's transfer never pays another's invoice.
 * Returns how many transfers still wait for more sources to report them.
 */
export async function settleTransfers(deps: SettlementDeps, head: number): Promise<number> {
  const deepest = head - deps.confirmations + 1;
  const ready = await readyTransfers(deps.db, deps.scope, deps.finalized === null ? deepest : Math.min(deepest, deps.finalized));
  if (!ready.length) return 0;
  const { timed, facts } = await readFacts(deps, ready);
  const plan = planSettlement(timed, facts);
  if (!plan.decisions.length) return plan.awaiting;
  const now = deps.clock.now();
  const done = await deps.feed.transaction(deps.db, async (trx, changed) => {
    const confirmed: Array<{ invoice: EvmInvoiceRow; transfer: TransferRow }> = [];
    const orphans: TransferRow[] = [];
    const events: NewEvent[] = [];
    for (const decision of plan.decisions) {
      const { transfer } = decision;
      if (decision.kind === 'orphan') {
        if (!(await leaveSeen(trx, transfer, { state: 'orphan' }))) continue;
        orphans.push(transfer);
        events.push({ merchantId: transfer.merchant_id, payload: orphanPayload(deps, transfer), createdAt: now });
      } else if (decision.kind === 'ignore') {
        await leaveSeen(trx, transfer, { state: 'ignored', invoice_id: decision.invoiceId });
      } else if (decision.kind === 'apply') {
        await leaveSeen(trx, transfer, { state: 'applied', invoice_id: decision.invoice.invoice_id });
      } else {
        if (!(await leaveSeen(trx, transfer, { state: 'applied', invoice_id: decision.invoice.invoice_id }))) continue;
        const invoice = await confirmOpenInvoice(trx, decision.invoice, transfer.tx_hash, decision.verification, now);
        if (!invoice) continue;
        changed({ invoice_id: invoice.invoice_id, merchant_id: invoice.merchant_id, status: 'confirmed', at: now });
        events.push({ merchantId: invoice.merchant_id, payload: confirmedPayload(invoice, transfer, head, decision.verification, now), createdAt: now });
        confirmed.push({ invoice, transfer });
      }
    }
    await enqueueEvents(trx, events);
    return { confirmed, orphans };
  });
  report(deps, plan.decisions, done, now);
  return plan.awaiting;
}

/**
 * Reads what planning needs: each transfer's method and candidate invoice, what those invoices
 * were paid before, and what the sources report. A transfer whose block time the sources agree on
 * differs from the scan's record is stored and planned with the agreed time (`timed`: the ready
 * transfers as planned), its candidate looked up again: the time decides which invoice it may pay.
 */
async function readFacts(deps: SettlementDeps, ready: TransferRow[]): Promise<{ timed: TransferRow[]; facts: SettlementFacts }> {
  const methodOf = methodAt(deps);
  const recorded = await candidatesOf(deps, methodOf, ready);
  // A transfer toward no invoice of ours pays nothing whoever reports it: no source is asked about it,
  // unless its method reports it (an exact amount's payment.orphan event is a report too).
  const { verified, agreedTimes } = await verifiedTransfers(deps, methodOf, ready.filter((t) => recorded.has(t) || methodOf(t).exactAmount));
  const timed = ready.map((t) => {
    const agreed = agreedTimes.get(transferKey(t));
    return agreed === undefined || agreed === Number(t.block_time) ? t : { ...t, block_time: agreed };
  });
  const retimed = timed.filter((t, i) => t !== ready[i]);
  for (const transfer of retimed) {
    await retimeTransfer(deps.db, transfer);
    deps.logger.warn(`${deps.scope.chain}: the sources agree on another block time than the scan recorded; the agreed one counts`, { tx_hash: transfer.tx_hash, block_number: transfer.block_number });
  }
  const candidates = retimed.length ? await candidatesOf(deps, methodOf, timed) : recorded;
  const invoices = [...new Map([...candidates.values()].map((invoice) => [invoiceKey(invoice), invoice])).values()];
  return { timed, facts: { methodOf, candidates, applied: await appliedUnits(deps.db, invoices), verified } };
}

/** The invoice each transfer may pay, as the method of its address finds it. */
async function candidatesOf(deps: SettlementDeps, methodOf: SettlementFacts['methodOf'], transfers: TransferRow[]): Promise<Map<TransferRow, EvmInvoiceRow>> {
  const byMethod = new Map<EvmPaymentMethod, TransferRow[]>();
  for (const transfer of transfers) byMethod.set(methodOf(transfer), [...(byMethod.get(methodOf(transfer)) ?? []), transfer]);
  const candidates = new Map<TransferRow, EvmInvoiceRow>();
  for (const [method, group] of byMethod) for (const [transfer, invoice] of await method.candidates(deps.db, deps.scope.chain, group)) candidates.set(transfer, invoice);
  return candidates;
}

/** The method of a transfer's address: fixed-address claims for the merchants' registered addresses, derived claims for the rest. */
const methodAt = (deps: Pick<SettlementDeps, 'isFixed'>) => (t: TransferRow) => evmMethodOfClaim(deps.isFixed(t.merchant_id, t.to_address) ? 'fixed' : 'derived');

/**
 * How each transfer enough sources report was verified, and the block time the sources agree on
 * where it was asked. With one source needed, the record stands (the operator's own node);
 * otherwise every source is asked about the receipts, and the transfer counts when enough report
 * the same log at the required depth on their own heads. The scan recorded the row once
 * `minSources` sources reported its log with the same block hash and time; a transfer that needs
 * more (a fixed-address match with `minSources` 1) has its time from fewer sources than it needs,
 * so for it the sources are also asked for the block headers, and it counts only when enough of
 * them give its block the same time (block-times.ts): at a fixed address the time decides which
 * invoice it pays.
 */
async function verifiedTransfers(
  deps: SettlementDeps,
  methodOf: SettlementFacts['methodOf'],
  transfers: TransferRow[],
): Promise<{ verified: Map<string, string>; agreedTimes: Map<string, number> }> {
  const sourcesNeeded = (t: TransferRow) => methodOf(t).sourcesNeeded(deps.minSources);
  const verified = new Map<string, string>();
  const agreedTimes = new Map<string, number>();
  const asking = transfers.filter((t) => sourcesNeeded(t) > 1);
  for (const t of transfers) if (!asking.includes(t)) verified.set(transferKey(t), evmVerification(1));
  if (!asking.length) return { verified, agreedTimes };
  const timing = asking.filter((t) => sourcesNeeded(t) > deps.minSources);
  const txHashes = [...new Set(asking.map((t) => t.tx_hash))];
  const blockHashes = [...new Set(timing.map((t) => t.block_hash))];
  // One request at a time per source (the sources in parallel): a provider's Retry-After is heard before its next request.
  const heard = await Promise.all(
    deps.sources.map(async (source) => ({ receipts: await askSource(source, txHashes), times: blockHashes.length ? await askBlockTimes(source, blockHashes) : null })),
  );
  const answers = heard.map((h) => h.receipts).filter((a) => a !== null);
  const timeAnswers = heard.map((h) => h.times).filter((a) => a !== null);
  for (const transfer of asking) {
    const verdict = judge(observed(transfer), answers, deps.confirmations);
    for (const disagreement of verdict.disagreements) deps.disagreed(disagreement);
    if (verdict.agreeing.length < sourcesNeeded(transfer)) continue;
    if (!timing.includes(transfer)) {
      verified.set(transferKey(transfer), evmVerification(verdict.agreeing.length));
      continue;
    }
    const time = judgeBlockTime({ hash: transfer.block_hash, number: Number(transfer.block_number) }, verdict.agreeing, timeAnswers, sourcesNeeded(transfer));
    for (const disagreement of time.disagreements) deps.disagreed(disagreement);
    if (time.agreed === null) continue;
    agreedTimes.set(transferKey(transfer), time.agreed);
    verified.set(transferKey(transfer), evmVerification(time.agreeing.length));
  }
  return { verified, agreedTimes };
}

const observed = (t: TransferRow): ObservedTransfer => ({
  txHash: t.tx_hash,
  logIndex: t.log_index,
  blockNumber: Number(t.block_number),
  blockHash: t.block_hash,
  token: t.token_address,
  to: t.to_address,
  value: BigInt(t.value),
});

function confirmedPayload(invoice: EvmInvoiceRow, completing: TransferRow, head: number, verification: string, now: number): WebhookEventContent<InvoiceConfirmedEvent> {
  return {
    event: 'invoice.confirmed',
    invoice_id: invoice.invoice_id,
    merchant_id: invoice.merchant_id,
    chain: invoice.chain as InvoiceConfirmedEvent['chain'],
    asset: invoice.asset,
    amount: unitsToDecimal(BigInt(invoice.amount_units!)),
    address: invoice.receive_address,
    tx_hash: completing.tx_hash,
    confirmations: head - completing.block_number + 1,
    confirmed_at: new Date(now).toISOString(),
    verification,
    ...invoiceShopFields(invoice),
      };
}

function orphanPayload(deps: SettlementDeps, transfer: TransferRow): WebhookEventContent<PaymentOrphanEvent> {
  return {
    event: 'payment.orphan',
    chain: transfer.chain as PaymentOrphanEvent['chain'],
    asset: deps.assetByToken.get(transfer.token_address) ?? 'unknown',
    token_address: transfer.token_address,
    address: transfer.to_address,
    tx_hash: transfer.tx_hash,
    value: unitsToDecimal(BigInt(transfer.value)),
    detected_at: new Date(transfer.detected_at).toISOString(),
  };
}

/** Logs and metrics of what the transaction really did. */
function report(
  deps: SettlementDeps,
  decisions: TransferDecision[],
  done: { confirmed: Array<{ invoice: EvmInvoiceRow; transfer: TransferRow }>; orphans: TransferRow[] },
  now: number,
) {
  for (const decision of decisions) {
    if (decision.kind !== 'ignore') continue;
    // A late, surplus or wrong-token transfer to an xpub address: the funds are the merchant's,
    // but it pays nothing. Orphan events are for fixed-address mode only.
    deps.logger.warn(`${deps.scope.chain}: transfer to an invoice address pays nothing (late, surplus or other token)`, {
      merchant_id: decision.transfer.merchant_id,
      invoice_id: decision.invoiceId ?? undefined,
      tx_hash: decision.transfer.tx_hash,
      value: unitsToDecimal(BigInt(decision.transfer.value)),
    });
  }
  for (const { invoice, transfer } of done.confirmed) {
    deps.observer?.transition(invoice.asset, 'confirmed');
    deps.observer?.settled((now - Number(transfer.detected_at)) / 1000);
    deps.observer?.confirmedAfterBlock((now - deps.headSeenAt) / 1000);
    deps.logger.info(`${deps.scope.chain}: invoice confirmed`, { merchant_id: invoice.merchant_id, invoice_id: invoice.invoice_id, tx_hash: transfer.tx_hash });
  }
  for (const transfer of done.orphans) {
    deps.logger.warn(`${deps.scope.chain}: payment.orphan (transfer to the fixed address matches no open invoice)`, {
      merchant_id: transfer.merchant_id,
      tx_hash: transfer.tx_hash,
      value: unitsToDecimal(BigInt(transfer.value)),
    });
  }
}
