import type { Kysely, Selectable, Transaction } from 'kysely';
import type { InvoiceConfirmedEvent, PaymentOrphanEvent } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import { enqueueEvent } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { WatchObserver } from '../watch-progress.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { unitsToDecimal } from './amount.ts';
import type { BaseTransfersTable } from './base.tables.ts';
import { sourceConfirms } from './corroborate.ts';
import type { RpcSource } from './rpc.ts';

type TransferRow = Selectable<BaseTransfersTable>;

/** Moves a transfer out of `seen`; false if something else already did (it is settled once). */
async function leaveSeen(
  db: Kysely<CoreTables> | Transaction<CoreTables>,
  merchantId: string,
  transfer: TransferRow,
  set: { state: 'applied' | 'orphan' | 'ignored'; invoice_id?: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('base_transfers')
    .set(set)
    .where('merchant_id', '=', merchantId)
    .where('tx_hash', '=', transfer.tx_hash)
    .where('log_index', '=', transfer.log_index)
    .where('state', '=', 'seen')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface SettlementDeps {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  merchantId: string;
  /** The EVM chain these transfers were read on. */
  chain: string;
  fixedAddress: string | null;
  confirmations: number;
  /** Checksummed token contract → asset name (USDC, USDT). */
  assetByToken: ReadonlyMap<string, string>;
  /** When the watcher read the head that confirmations are counted against. */
  headSeenAt: number;
  observer?: Pick<WatchObserver, 'transition' | 'settled' | 'confirmedAfterBlock'>;
}

/**
 * Invoices a payment may still complete: `partial` is set by the watcher (partial.ts), and
 * `expired` may be the lazy flip at read time while a transfer mined before expiry confirms.
 */
export const OPEN = ['pending', 'partial', 'expired'];

/**
 * Settles recorded transfers that reached the required confirmations on the scanning source.
 * A transfer pays an invoice only if its block's timestamp is not after the invoice's expiry.
 * Every state change and its event are written in one transaction, and each transfer row
 * leaves `seen` exactly once, so a payment is never credited twice.
 * Returns how many fixed-address matches still wait for a second source.
 */
export async function settleTransfers(deps: SettlementDeps, head: number, others: RpcSource[]): Promise<number> {
  const { db, merchantId, confirmations } = deps;
  const ready = await db
    .selectFrom('base_transfers')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('chain', '=', deps.chain)
    .where('state', '=', 'seen')
    .where('block_number', '<=', head - confirmations + 1)
    .orderBy('block_number')
    .orderBy('log_index')
    .execute();
  let awaiting = 0;
  for (const transfer of ready) {
    if (transfer.to_address === deps.fixedAddress) {
      if (!(await settleFixed(deps, transfer, head, others))) awaiting++;
    } else {
      await settleXpub(deps, transfer, head);
    }
  }
  return awaiting;
}

/** This merchant's invoices on the watched chain whose receive address is `address`. */
function baseInvoicesTo(deps: Pick<SettlementDeps, 'db' | 'merchantId' | 'chain'>, address: string) {
  return deps.db
    .selectFrom('invoices')
    .selectAll()
    .where('merchant_id', '=', deps.merchantId)
    .where('chain', '=', deps.chain)
    .where('receive_address', '=', address);
}

/** Returns false when the transfer matches an open invoice but too few sources confirm it yet. */
async function settleFixed(deps: SettlementDeps, transfer: TransferRow, head: number, others: RpcSource[]): Promise<boolean> {
  const { db, merchantId } = deps;
  const invoice = await baseInvoicesTo(deps, transfer.to_address)
    .where('nonce', 'is not', null)
    .where('token_address', '=', transfer.token_address)
    .where('amount_units', '=', transfer.value)
    .where('status', 'in', OPEN)
    .where('expires_at', '>=', transfer.block_time)
    .executeTakeFirst();
  if (!invoice) {
    await markOrphan(deps, transfer);
    return true;
  }
  // The scanning source is one; a fixed-address payment needs at least one more to agree.
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
  if (agreeing < 2) return false;
  await confirmInvoice(deps, invoice.invoice_id, transfer, head);
  return true;
}

async function settleXpub(deps: SettlementDeps, transfer: TransferRow, head: number): Promise<void> {
  const { db, merchantId } = deps;
  const invoice = await baseInvoicesTo(deps, transfer.to_address)
    .where('child_index', 'is not', null)
    .executeTakeFirst();
  const counts =
    invoice &&
    invoice.token_address === transfer.token_address &&
    OPEN.includes(invoice.status) &&
    transfer.block_time <= invoice.expires_at;
  if (!invoice || !counts) {
    // A late, surplus or wrong-token transfer to an xpub address: the funds are the merchant's,
    // but it pays nothing. Spec: orphan events are for fixed-address mode only.
    await leaveSeen(db, merchantId, transfer, { state: 'ignored', invoice_id: invoice?.invoice_id ?? null });
    deps.logger.warn('base: transfer to an invoice address pays nothing (late, surplus or other token)', {
      invoice_id: invoice?.invoice_id,
      tx_hash: transfer.tx_hash,
      value: unitsToDecimal(BigInt(transfer.value)),
    });
    return;
  }
  const earlier = await db
    .selectFrom('base_transfers')
    .select('value')
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', '=', invoice.invoice_id)
    .where('state', '=', 'applied')
    .execute();
  const paid = earlier.reduce((sum, t) => sum + BigInt(t.value), 0n) + BigInt(transfer.value);
  if (paid >= BigInt(invoice.amount_units!)) {
    await confirmInvoice(deps, invoice.invoice_id, transfer, head);
  } else {
    await leaveSeen(db, merchantId, transfer, { state: 'applied', invoice_id: invoice.invoice_id });
  }
}

/** Marks the completing transfer applied and the invoice confirmed, with its event, atomically. */
async function confirmInvoice(deps: SettlementDeps, invoiceId: string, completing: TransferRow, head: number): Promise<void> {
  const { db, merchantId, clock } = deps;
  const now = clock.now();
  const confirmed = await deps.feed.transaction(db, async (trx, changed) => {
    if (!(await leaveSeen(trx, merchantId, completing, { state: 'applied', invoice_id: invoiceId }))) return undefined;
    const invoice = await trx
      .updateTable('invoices')
      .set({ status: 'confirmed', tx_hash: completing.tx_hash, paid_at: now, updated_at: now })
      .where('merchant_id', '=', merchantId)
      .where('invoice_id', '=', invoiceId)
      .where('status', 'in', OPEN)
      .returningAll()
      .executeTakeFirst();
    if (!invoice) return undefined;
    changed({ invoice_id: invoiceId, merchant_id: merchantId, status: 'confirmed', at: now });
    const payload: InvoiceConfirmedEvent = {
      event: 'invoice.confirmed',
      invoice_id: invoice.invoice_id,
      merchant_id: merchantId,
      chain: deps.chain as InvoiceConfirmedEvent['chain'],
      asset: invoice.asset,
      amount: unitsToDecimal(BigInt(invoice.amount_units!)),
      address: invoice.receive_address,
      tx_hash: completing.tx_hash,
      confirmations: head - completing.block_number + 1,
      confirmed_at: new Date(now).toISOString(),
    };
    await enqueueEvent(trx, { merchantId, payload, createdAt: now });
    return invoice;
  });
  if (!confirmed) return;
  deps.observer?.transition(confirmed.asset, 'confirmed');
  deps.observer?.settled((now - Number(completing.detected_at)) / 1000);
  deps.observer?.confirmedAfterBlock((now - deps.headSeenAt) / 1000);
  deps.logger.info('base: invoice confirmed', { invoice_id: invoiceId, tx_hash: completing.tx_hash });
}

async function markOrphan(deps: SettlementDeps, transfer: TransferRow): Promise<void> {
  const { db, merchantId, clock } = deps;
  await db.transaction().execute(async (trx) => {
    const changed = await leaveSeen(trx, merchantId, transfer, { state: 'orphan' });
    if (!changed) return;
    const payload: PaymentOrphanEvent = {
      event: 'payment.orphan',
      chain: deps.chain as PaymentOrphanEvent['chain'],
      asset: deps.assetByToken.get(transfer.token_address) ?? 'unknown',
      token_address: transfer.token_address,
      address: transfer.to_address,
      tx_hash: transfer.tx_hash,
      value: unitsToDecimal(BigInt(transfer.value)),
      detected_at: new Date(transfer.detected_at).toISOString(),
    };
    await enqueueEvent(trx, { merchantId, payload, createdAt: clock.now() });
  });
  deps.logger.warn('base: payment.orphan (transfer to the fixed address matches no open invoice)', {
    tx_hash: transfer.tx_hash,
    value: unitsToDecimal(BigInt(transfer.value)),
  });
}
