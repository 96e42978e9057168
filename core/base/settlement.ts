import type { Kysely } from 'kysely';
import type { InvoiceConfirmedEvent, PaymentOrphanEvent, WebhookEventContent } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import { enqueueEvents, type NewEvent } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { WatchObserver } from '../watch-progress.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { unitsToDecimal } from './amount.ts';
import {
  appliedUnits,
  confirmOpenInvoice,
  fixedInvoiceMatching,
  leaveSeen,
  OPEN,
  readyTransfers,
  xpubInvoicesAt,
  type BaseInvoiceRow,
  type BaseWatchScope,
  type TransferRow,
} from './base-transfer.repository.ts';
import { sourceConfirms } from './corroborate.ts';
import type { RpcSource } from './rpc.ts';

export interface SettlementDeps {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  scope: BaseWatchScope;
  /** Whether the address is the merchant's fixed receive address (exact-amount matching). */
  isFixed: (merchantId: string, address: string) => boolean;
  confirmations: number;
  /** The node's finalized block when the chain's finality rule reads it: nothing above it settles. */
  finalized: number | null;
  /** Checksummed token contract → asset name (USDC, USDT). */
  assetByToken: ReadonlyMap<string, string>;
  /** When the watcher read the head that confirmations are counted against. */
  headSeenAt: number;
  observer?: Pick<WatchObserver, 'transition' | 'settled' | 'confirmedAfterBlock'>;
}

/** What becomes of one ready transfer. */
export type TransferDecision =
  | { kind: 'confirm'; transfer: TransferRow; invoice: BaseInvoiceRow }
  | { kind: 'apply'; transfer: TransferRow; invoice: BaseInvoiceRow }
  | { kind: 'ignore'; transfer: TransferRow; invoiceId: string | null }
  | { kind: 'orphan'; transfer: TransferRow };

/** What the database and the other sources said about the ready transfers, read before planning. */
export interface SettlementFacts {
  isFixed: (merchantId: string, address: string) => boolean;
  /** Xpub invoices by `merchant\naddress`. */
  xpubInvoices: ReadonlyMap<string, BaseInvoiceRow>;
  /** Units already applied, by `merchant\ninvoice`. */
  applied: ReadonlyMap<string, bigint>;
  /** Fixed-address transfers' matching open invoice, and whether enough sources agree, by transfer key. */
  fixedMatches: ReadonlyMap<string, { invoice: BaseInvoiceRow; corroborated: boolean }>;
}

const invoiceKey = (invoice: { merchant_id: string; invoice_id: string }) => `${invoice.merchant_id}\n${invoice.invoice_id}`;
const transferKey = (t: TransferRow) => `${t.merchant_id}\n${t.tx_hash}\n${t.log_index}`;
const addressKey = (merchantId: string, address: string) => `${merchantId}\n${address}`;

/**
 * Decides every ready transfer in chain order, as if settled one by one: a transfer completing an
 * invoice confirms it, and a later one to the same invoice pays nothing (xpub) or is an orphan
 * (fixed address). Fixed-address matches that too few sources confirm yet wait. Pure.
 */
export function planSettlement(ready: readonly TransferRow[], facts: SettlementFacts): { decisions: TransferDecision[]; awaiting: number } {
  const decisions: TransferDecision[] = [];
  const confirmed = new Set<string>();
  const applied = new Map(facts.applied);
  let awaiting = 0;
  for (const transfer of ready) {
    if (facts.isFixed(transfer.merchant_id, transfer.to_address)) {
      const match = facts.fixedMatches.get(transferKey(transfer));
      if (!match || confirmed.has(invoiceKey(match.invoice))) decisions.push({ kind: 'orphan', transfer });
      else if (!match.corroborated) awaiting++;
      else {
        confirmed.add(invoiceKey(match.invoice));
        decisions.push({ kind: 'confirm', transfer, invoice: match.invoice });
      }
      continue;
    }
    const invoice = facts.xpubInvoices.get(addressKey(transfer.merchant_id, transfer.to_address));
    const counts =
      invoice &&
      invoice.token_address === transfer.token_address &&
      OPEN.includes(invoice.status) &&
      !confirmed.has(invoiceKey(invoice)) &&
      transfer.block_time <= invoice.expires_at;
    if (!invoice || !counts) {
      decisions.push({ kind: 'ignore', transfer, invoiceId: invoice?.invoice_id ?? null });
      continue;
    }
    const paid = (applied.get(invoiceKey(invoice)) ?? 0n) + BigInt(transfer.value);
    applied.set(invoiceKey(invoice), paid);
    if (paid >= BigInt(invoice.amount_units!)) {
      confirmed.add(invoiceKey(invoice));
      decisions.push({ kind: 'confirm', transfer, invoice });
    } else {
      decisions.push({ kind: 'apply', transfer, invoice });
    }
  }
  return { decisions, awaiting };
}

/**
 * Settles recorded transfers of the scope's merchants that reached the required confirmations on
 * the scanning source. A transfer pays an invoice only if its block's timestamp is not after the
 * invoice's expiry. The pass is read, planned, then written in one transaction with its events;
 * each transfer row leaves `seen` exactly once (guarded), so a payment is never credited twice,
 * and each row is its own merchant's, so one merchant's transfer never pays another's invoice.
 * Returns how many fixed-address matches still wait for a second source.
 */
export async function settleTransfers(deps: SettlementDeps, head: number, others: RpcSource[]): Promise<number> {
  const deepest = head - deps.confirmations + 1;
  const ready = await readyTransfers(deps.db, deps.scope, deps.finalized === null ? deepest : Math.min(deepest, deps.finalized));
  if (!ready.length) return 0;
  const plan = planSettlement(ready, await readFacts(deps, ready, others));
  if (!plan.decisions.length) return plan.awaiting;
  const now = deps.clock.now();
  const done = await deps.feed.transaction(deps.db, async (trx, changed) => {
    const confirmed: Array<{ invoice: BaseInvoiceRow; transfer: TransferRow }> = [];
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
        const invoice = await confirmOpenInvoice(trx, decision.invoice, transfer.tx_hash, now);
        if (!invoice) continue;
        changed({ invoice_id: invoice.invoice_id, merchant_id: invoice.merchant_id, status: 'confirmed', at: now });
        events.push({ merchantId: invoice.merchant_id, payload: confirmedPayload(invoice, transfer, head, now), createdAt: now });
        confirmed.push({ invoice, transfer });
      }
    }
    await enqueueEvents(trx, events);
    return { confirmed, orphans };
  });
  report(deps, plan.decisions, done, now);
  return plan.awaiting;
}

/** Reads what planning needs: the xpub invoices paid to, what they were paid before, and the fixed-address matches with their corroboration. */
async function readFacts(deps: SettlementDeps, ready: TransferRow[], others: RpcSource[]): Promise<SettlementFacts> {
  const fixed = ready.filter((t) => deps.isFixed(t.merchant_id, t.to_address));
  const xpub = ready.filter((t) => !deps.isFixed(t.merchant_id, t.to_address));
  const invoices = await xpubInvoicesAt(deps.db, deps.scope.chain, xpub.map((t) => ({ merchantId: t.merchant_id, address: t.to_address })));
  const fixedMatches = new Map<string, { invoice: BaseInvoiceRow; corroborated: boolean }>();
  for (const transfer of fixed) {
    const invoice = await fixedInvoiceMatching(deps.db, transfer);
    if (invoice) fixedMatches.set(transferKey(transfer), { invoice, corroborated: await corroborated(deps, transfer, others) });
  }
  return {
    isFixed: deps.isFixed,
    xpubInvoices: new Map(invoices.map((invoice) => [addressKey(invoice.merchant_id, invoice.receive_address), invoice])),
    applied: await appliedUnits(deps.db, invoices),
    fixedMatches,
  };
}

/** The scanning source is one; a fixed-address payment needs at least one more to agree. */
async function corroborated(deps: SettlementDeps, transfer: TransferRow, others: RpcSource[]): Promise<boolean> {
  let agreeing = 1;
  for (const source of others) {
    if (agreeing >= 2) break;
    const observed = {
      txHash: transfer.tx_hash,
      logIndex: transfer.log_index,
      blockNumber: transfer.block_number,
      blockHash: transfer.block_hash,
      token: transfer.token_address,
      to: transfer.to_address,
      value: BigInt(transfer.value),
    };
    if (await sourceConfirms(source, observed, deps.confirmations)) agreeing++;
  }
  return agreeing >= 2;
}

function confirmedPayload(invoice: BaseInvoiceRow, completing: TransferRow, head: number, now: number): WebhookEventContent<InvoiceConfirmedEvent> {
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
  done: { confirmed: Array<{ invoice: BaseInvoiceRow; transfer: TransferRow }>; orphans: TransferRow[] },
  now: number,
) {
  for (const decision of decisions) {
    if (decision.kind !== 'ignore') continue;
    // A late, surplus or wrong-token transfer to an xpub address: the funds are the merchant's,
    // but it pays nothing. Orphan events are for fixed-address mode only.
    deps.logger.warn('base: transfer to an invoice address pays nothing (late, surplus or other token)', {
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
    deps.logger.info('base: invoice confirmed', { merchant_id: invoice.merchant_id, invoice_id: invoice.invoice_id, tx_hash: transfer.tx_hash });
  }
  for (const transfer of done.orphans) {
    deps.logger.warn('base: payment.orphan (transfer to the fixed address matches no open invoice)', {
      merchant_id: transfer.merchant_id,
      tx_hash: transfer.tx_hash,
      value: unitsToDecimal(BigInt(transfer.value)),
    });
  }
}
