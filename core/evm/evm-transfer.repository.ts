import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { EvmTransfersTable } from './evm.tables.ts';
import type { BlockHeader, TransferLog } from './chain.ts';
import { CHAIN_CLOCK_SKEW_MS } from './nonce.ts';
import { chunks } from '../db/chunks.ts';

type Db = Kysely<CoreTables> | Transaction<CoreTables>;
export type TransferRow = Selectable<EvmTransfersTable>;
export type EvmInvoiceRow = InvoiceRow;

/**
 * Invoices a payment may still complete: `partial` is set by the watcher (partial.ts), and
 * `expired` may be the lazy flip at read time while a transfer mined before expiry confirms.
 */
export const OPEN = ['pending', 'partial', 'expired'];

/**
 * The invoices one Base watcher follows: one merchant's (the listener), or every merchant's (Cloud).
 * `key` names the watcher's own progress (its rows in base_blocks, whose merchant_id column holds it).
 */
export interface EvmWatchScope {
  key: string;
  merchantId: string | null;
  /** The EVM chain watched: its transfers and range ends are kept apart from the other chains'. */
  chain: string;
}

/** One merchant's invoices, progress under its merchant id: the listener's scope, where earlier versions kept their progress. */
export const merchantEvmScope = (merchantId: string, chain: string): EvmWatchScope => ({ key: merchantId, merchantId, chain });

/** Every merchant's invoices of one chain, progress under a fixed key no merchant id takes: Cloud's scope. */
export const chainEvmScope = (chain: string, chainId: number): EvmWatchScope => ({ key: `watch:${chain}:${chainId}`, merchantId: null, chain });

/** A Transfer log to one merchant's address: a log to an address several merchants registered is one row per merchant. */
export interface MerchantTransfer {
  merchantId: string;
  log: TransferLog;
  blockTime: number;
}

/** The scope's rows: its chain's, and its merchant's when it has one (`prefix`: the table's alias). */
const scopeFilter = <QB extends { where: (...args: any[]) => QB }>(query: QB, scope: EvmWatchScope, prefix = ''): QB => {
  const ofChain = query.where(`${prefix}chain`, '=', scope.chain);
  return scope.merchantId === null ? ofChain : ofChain.where(`${prefix}merchant_id`, '=', scope.merchantId);
};

/** The scope's own range ends. */
const ownCheckpoints = <QB extends { where: (...args: any[]) => QB }>(query: QB, scope: EvmWatchScope): QB =>
  query.where('merchant_id', '=', scope.key).where('chain', '=', scope.chain);

export const checkpointOf = (scope: EvmWatchScope, header: BlockHeader) => ({
  merchant_id: scope.key,
  chain: scope.chain,
  block_number: header.number,
  block_hash: header.hash,
  block_time: header.time,
});

/** The watcher's latest processed range end. */
export function lastCheckpoint(db: Db, scope: EvmWatchScope) {
  return ownCheckpoints(db.selectFrom('base_blocks').selectAll(), scope).orderBy('block_number', 'desc').limit(1).executeTakeFirst();
}

/** Every stored range end, newest first: a reorg's common ancestor is looked for among them. */
export function checkpoints(db: Db, scope: EvmWatchScope) {
  return ownCheckpoints(db.selectFrom('base_blocks').selectAll(), scope).orderBy('block_number', 'desc').execute();
}

/**
 * A Cloud watcher's first start after per-merchant watchers: it continues from the range end of the
 * merchant that was furthest behind, so transfers made while the instance was upgraded are still
 * found; the merchants' own range ends are dropped. Nothing happens once the watcher has progress
 * of its own, or for the listener's scope (its key is the merchant id, whose rows it keeps using).
 */
export async function adoptMerchantCheckpoints(db: Kysely<CoreTables>, scope: EvmWatchScope): Promise<number | null> {
  if (scope.merchantId !== null) return null;
  return db.transaction().execute(async (trx) => {
    if (await lastCheckpoint(trx, scope)) return null;
    const merchants = trx.selectFrom('invoices').select('invoices.merchant_id').where('invoices.chain', '=', scope.chain);
    const lasts = await trx
      .selectFrom('base_blocks')
      .select(['merchant_id', (eb) => eb.fn.max<number>('block_number').as('block_number')])
      .where('merchant_id', 'in', merchants)
      .where('chain', '=', scope.chain)
      .groupBy('merchant_id')
      .execute();
    if (!lasts.length) return null;
    const behind = lasts.reduce((a, b) => (Number(b.block_number) < Number(a.block_number) ? b : a));
    const row = await trx.selectFrom('base_blocks').selectAll().where('merchant_id', '=', behind.merchant_id).where('chain', '=', scope.chain).where('block_number', '=', behind.block_number).executeTakeFirstOrThrow();
    await trx.deleteFrom('base_blocks').where('merchant_id', 'in', merchants).where('chain', '=', scope.chain).execute();
    await trx.insertInto('base_blocks').values({ ...row, merchant_id: scope.key }).execute();
    return Number(row.block_number);
  });
}

export async function insertCheckpoint(db: Db, scope: EvmWatchScope, header: BlockHeader) {
  await db.insertInto('base_blocks').values(checkpointOf(scope, header)).execute();
}

/**
 * Forgets everything above `ancestor` (transfers still `seen`, range ends) and stores it as the
 * range end to continue from; returns the transfers above it that had already settled, which a
 * reorg this deep cannot undo.
 */
export async function rollBackAbove(trx: Transaction<CoreTables>, scope: EvmWatchScope, ancestor: BlockHeader) {
  const settled = await scopeFilter(
    trx.selectFrom('base_transfers').select(['merchant_id', 'tx_hash', 'invoice_id', 'state']).where('block_number', '>', ancestor.number).where('state', '!=', 'seen'),
    scope,
  ).execute();
  await scopeFilter(trx.deleteFrom('base_transfers').where('block_number', '>', ancestor.number).where('state', '=', 'seen'), scope).execute();
  await ownCheckpoints(trx.deleteFrom('base_blocks'), scope).where('block_number', '>=', ancestor.number).execute();
  await insertCheckpoint(trx, scope, ancestor);
  return settled;
}

/** The address of every xpub invoice still open at `sinceTime`, with its merchant. */
export async function openXpubAddresses(db: Db, scope: EvmWatchScope, sinceTime: number): Promise<Array<{ merchantId: string; address: string }>> {
  const rows = await scopeFilter(
    db
      .selectFrom('invoices')
      .select(['merchant_id', 'receive_address'])
      .where('child_index', 'is not', null)
      .where('status', 'in', OPEN)
      .where('expires_at', '>=', sinceTime),
    scope,
  ).execute();
  return rows.map((r) => ({ merchantId: r.merchant_id, address: r.receive_address }));
}

/** Records the scanned range's transfers (each once per merchant) and its end, and forgets range ends deeper than `keep`. */
export async function recordRange(trx: Transaction<CoreTables>, scope: EvmWatchScope, transfers: MerchantTransfer[], end: BlockHeader, detectedAt: number, keep: number) {
  for (const { merchantId, log, blockTime } of transfers) {
    await trx
      .insertInto('base_transfers')
      .values({
        merchant_id: merchantId,
        chain: scope.chain,
        tx_hash: log.txHash,
        log_index: log.logIndex,
        block_number: log.blockNumber,
        block_hash: log.blockHash,
        block_time: blockTime,
        token_address: log.token,
        from_address: log.from,
        to_address: log.to,
        value: log.value.toString(),
        state: 'seen',
        invoice_id: null,
        detected_at: detectedAt,
      })
      .onConflict((oc) => oc.columns(['merchant_id', 'tx_hash', 'log_index']).doNothing())
      .execute();
  }
  await insertCheckpoint(trx, scope, end);
  await ownCheckpoints(trx.deleteFrom('base_blocks'), scope).where('block_number', '<', end.number - keep).execute();
}

/** Recorded transfers with enough confirmations that were not settled yet, oldest first. */
export function readyTransfers(db: Db, scope: EvmWatchScope, deepestBlock: number): Promise<TransferRow[]> {
  return scopeFilter(db.selectFrom('base_transfers').selectAll().where('state', '=', 'seen').where('block_number', '<=', deepestBlock), scope)
    .orderBy('block_number')
    .orderBy('log_index')
    .orderBy('merchant_id')
    .execute();
}

/** Each merchant's Base invoices at these addresses (xpub invoices: one per address). */
export async function xpubInvoicesAt(db: Db, chain: string, targets: Array<{ merchantId: string; address: string }>): Promise<EvmInvoiceRow[]> {
  const rows: EvmInvoiceRow[] = [];
  for (const [merchantId, addresses] of groupAddresses(targets)) {
    for (const chunk of chunks(addresses)) {
      rows.push(
        ...(await db
          .selectFrom('invoices')
          .selectAll()
          .where('merchant_id', '=', merchantId)
          .where('chain', '=', chain)
          .where('child_index', 'is not', null)
          .where('receive_address', 'in', chunk)
          .execute()),
      );
    }
  }
  return rows;
}

function groupAddresses(targets: Array<{ merchantId: string; address: string }>): Map<string, string[]> {
  const groups = new Map<string, Set<string>>();
  for (const { merchantId, address } of targets) groups.set(merchantId, (groups.get(merchantId) ?? new Set()).add(address));
  return new Map([...groups].map(([merchantId, addresses]) => [merchantId, [...addresses]]));
}

/** Token units already applied to each of these invoices, by `merchant\ninvoice`. */
export async function appliedUnits(db: Db, invoices: EvmInvoiceRow[]): Promise<Map<string, bigint>> {
  const sums = new Map<string, bigint>();
  const byMerchant = new Map<string, string[]>();
  for (const invoice of invoices) {
    const ids = byMerchant.get(invoice.merchant_id);
    if (ids) ids.push(invoice.invoice_id);
    else byMerchant.set(invoice.merchant_id, [invoice.invoice_id]);
  }
  for (const [merchantId, invoiceIds] of byMerchant) {
    for (const chunk of chunks(invoiceIds)) {
      const rows = await db
        .selectFrom('base_transfers')
        .select(['invoice_id', 'value'])
        .where('merchant_id', '=', merchantId)
        .where('invoice_id', 'in', chunk)
        .where('state', '=', 'applied')
        .execute();
      for (const row of rows) {
        const key = `${merchantId}\n${row.invoice_id}`;
        sums.set(key, (sums.get(key) ?? 0n) + BigInt(row.value));
      }
    }
  }
  return sums;
}

/**
 * The open fixed-address invoice of the transfer's merchant that the transfer's exact amount and
 * token match, and that was created by the transfer's block time (give or take CHAIN_CLOCK_SKEW_MS)
 * and expired no earlier: a transfer of an amount reused after its quarantine matches the invoice
 * of its own time only. Leases keep two invoices of one amount that far apart, so at most one
 * matches; the oldest is taken should the windows ever touch.
 */
export function fixedInvoiceMatching(db: Db, transfer: TransferRow) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('merchant_id', '=', transfer.merchant_id)
    .where('chain', '=', transfer.chain)
    .where('receive_address', '=', transfer.to_address)
    .where('nonce', 'is not', null)
    .where('token_address', '=', transfer.token_address)
    .where('amount_units', '=', transfer.value)
    .where('status', 'in', OPEN)
    .where('expires_at', '>=', transfer.block_time)
    .where('created_at', '<=', Number(transfer.block_time) + CHAIN_CLOCK_SKEW_MS)
    .orderBy('created_at')
    .executeTakeFirst();
}

/** Stores the block time the sources agree on for a transfer not settled yet (settlement.ts). */
export async function retimeTransfer(db: Db, transfer: TransferRow): Promise<void> {
  await db
    .updateTable('base_transfers')
    .set({ block_time: transfer.block_time })
    .where('merchant_id', '=', transfer.merchant_id)
    .where('tx_hash', '=', transfer.tx_hash)
    .where('log_index', '=', transfer.log_index)
    .where('state', '=', 'seen')
    .execute();
}

/** Moves a transfer out of `seen`; false if something else already did (it is settled once). */
export async function leaveSeen(
  trx: Db,
  transfer: TransferRow,
  set: { state: 'applied' | 'orphan' | 'ignored'; invoice_id?: string | null },
): Promise<boolean> {
  const result = await trx
    .updateTable('base_transfers')
    .set(set)
    .where('merchant_id', '=', transfer.merchant_id)
    .where('tx_hash', '=', transfer.tx_hash)
    .where('log_index', '=', transfer.log_index)
    .where('state', '=', 'seen')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Confirms an open invoice with its completing transaction and how it was verified; the row, or undefined if it was no longer open. */
export function confirmOpenInvoice(trx: Db, invoice: EvmInvoiceRow, txHash: string, verification: string, now: number) {
  return trx
    .updateTable('invoices')
    .set({ status: 'confirmed', tx_hash: txHash, verification, paid_at: now, updated_at: now })
    .where('merchant_id', '=', invoice.merchant_id)
    .where('invoice_id', '=', invoice.invoice_id)
    .where('status', 'in', OPEN)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Unconfirmed invoices whose transfers add up, with the transfers seen toward them (see partial.ts
 * for the rule; one applied to another invoice is that invoice's alone): the rows with one of
 * `ownedBy` set (the columns marking those methods' rows).
 */
export function partialCandidates(db: Db, scope: EvmWatchScope, ownedBy: ReadonlyArray<'child_index' | 'nonce'>) {
  return scopeFilter(
    db
      .selectFrom('invoices as i')
      .leftJoin('base_transfers as t', (join) =>
        join
          .onRef('t.merchant_id', '=', 'i.merchant_id')
          .onRef('t.chain', '=', 'i.chain')
          .onRef('t.to_address', '=', 'i.receive_address')
          .onRef('t.token_address', '=', 'i.token_address')
          .onRef('t.block_time', '<=', 'i.expires_at')
          .on('t.state', 'in', ['seen', 'applied'])
          .on((eb) => eb.or([eb('t.invoice_id', 'is', null), eb('t.invoice_id', '=', eb.ref('i.invoice_id'))])),
      )
      .select(['i.merchant_id', 'i.invoice_id', 'i.status', 'i.amount_units', 'i.expires_at', 't.value'])
      .where((eb) => eb.or(ownedBy.map((column) => eb(`i.${column}`, 'is not', null))))
      .where('i.status', 'in', ['pending', 'partial'])
      .where((eb) => eb.or([eb('i.status', '=', 'partial'), eb('t.tx_hash', 'is not', null)])),
    scope,
    'i.',
  ).execute();
}

/** Moves an invoice's status if it still is `from`; true when it moved. */
export async function moveInvoiceStatus(trx: Db, invoice: { merchant_id: string; invoice_id: string }, from: string, to: string, now: number): Promise<boolean> {
  const moved = await trx
    .updateTable('invoices')
    .set({ status: to, updated_at: now })
    .where('merchant_id', '=', invoice.merchant_id)
    .where('invoice_id', '=', invoice.invoice_id)
    .where('status', '=', from)
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}
