import type { Kysely } from 'kysely';
import type * as z from 'zod';
import { invoiceCsvColumns, type InvoiceCsvColumn, type InvoiceList, type InvoiceListEntry, type InvoiceStatus } from '../../shared/index.ts';
import { chainIn } from '../chain-definition.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { ChainModule } from './chain-module.ts';
import { csvLine } from './invoice-csv.ts';
import type { InvoiceRow } from './invoice.repository.ts';
import { invoiceOrderFields } from './order-fields.ts';
import { encodeCursor, type InvoiceFilters, type ListPosition, type ListRequest } from './list-query.ts';

/** How many rows an export reads per query: memory stays bounded by this, not by the merchant's invoice count. */
const EXPORT_CHUNK_ROWS = 1000;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** A stored invoice as a list entry: the same fields on the listener and Cloud. */
function listEntry(chains: readonly ChainModule[], row: InvoiceRow): z.infer<typeof InvoiceListEntry> {
  return {
    invoice_id: row.invoice_id,
    chain: row.chain,
    asset: row.asset,
    amount: chainIn(chains, row.chain).amountText(row),
    receive_address: row.receive_address,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    created_at: iso(row.created_at),
    paid_at: row.paid_at === null ? null : iso(row.paid_at),
    expires_at: iso(row.expires_at),
    ...invoiceOrderFields(row),
  };
}

/** One merchant's invoices matching the filters, after a position, in list order (newest first; the id breaks ties). */
function matching(db: Kysely<CoreTables>, merchantId: string, filters: InvoiceFilters, after: ListPosition | null) {
  let query = db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.chain) query = query.where('chain', '=', filters.chain);
  if (filters.asset) query = query.where('asset', '=', filters.asset);
  if (filters.orderId) query = query.where('order_id', '=', filters.orderId);
  if (filters.createdFrom !== undefined) query = query.where('created_at', '>=', filters.createdFrom);
  if (filters.createdTo !== undefined) query = query.where('created_at', '<', filters.createdTo);
  const q = filters.q;
  if (q) {
    // Addresses compare in any case: an EVM address is stored checksummed, a payer may paste it lower-case.
    query = query.where((eb) => eb.or([eb('invoice_id', '=', q), eb('order_id', '=', q), eb(eb.fn('lower', ['receive_address']), '=', q.toLowerCase())]));
  }
  if (after) {
    // The bound alone lets the index seek to the position; the OR below cannot, and each page would scan all before it.
    query = query.where('created_at', '<=', after.createdAt).where((eb) =>
      eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('invoice_id', '<', after.invoiceId)])]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('invoice_id', 'desc');
}

const positionOf = (row: InvoiceRow): ListPosition => ({ createdAt: Number(row.created_at), invoiceId: row.invoice_id });

/** A field an edition adds to its entries, and as a last CSV column (Cloud's `checkout_url`); null leaves it out of the entry. */
export interface ExtraListField {
  name: string;
  value(row: InvoiceRow): string | null;
}

export interface InvoiceListDeps {
  db: Kysely<CoreTables>;
  clock: Clock;
  chains: readonly ChainModule[];
  /** The engine's guarded lazy expiry, applied to the lapsed pending invoices a page shows. */
  expireIfLapsed(merchantId: string, invoiceId: string, now: number): Promise<void>;
  extra?: readonly ExtraListField[];
}

/**
 * Finding a merchant's invoices, for both editions: a page with the cursor of the next, and every
 * matching invoice as CSV. Each read flips the lapsed pending invoices it shows (as
 * reading one invoice does) and reads again, so a listed status is the one a read would answer.
 */
export function createInvoiceLists(deps: InvoiceListDeps) {
  const extra = deps.extra ?? [];
  const entryOf = (row: InvoiceRow) => {
    const added = extra.flatMap((field) => {
      const value = field.value(row);
      return value === null ? [] : [[field.name, value]];
    });
    return { ...listEntry(deps.chains, row), ...Object.fromEntries(added) };
  };
  const csvFields = (row: InvoiceRow): (string | null)[] => {
    const fields: Record<InvoiceCsvColumn, string | null> = {
      ...listEntry(deps.chains, row),
      order_id: row.order_id,
      memo: row.memo,
      metadata: row.metadata,
      redirect_url: row.redirect_url,
      price_amount: row.price_amount,
      price_currency: row.price_currency,
    };
    return [...invoiceCsvColumns.map((column) => fields[column]), ...extra.map((field) => field.value(row))];
  };

  async function read(merchantId: string, filters: InvoiceFilters, after: ListPosition | null, count: number): Promise<InvoiceRow[]> {
    const once = () => matching(deps.db, merchantId, filters, after).limit(count).execute();
    const rows = await once();
    const now = deps.clock.now();
    const lapsed = rows.filter((row) => row.status === 'pending' && Number(row.expires_at) <= now);
    if (lapsed.length === 0) return rows;
    for (const row of lapsed) await deps.expireIfLapsed(merchantId, row.invoice_id, now);
    return once();
  }

  async function* chunksOf(merchantId: string, filters: InvoiceFilters): AsyncGenerator<InvoiceRow[]> {
    let after: ListPosition | null = null;
    for (;;) {
      const rows = await read(merchantId, filters, after, EXPORT_CHUNK_ROWS);
      if (rows.length > 0) yield rows;
      if (rows.length < EXPORT_CHUNK_ROWS) return;
      after = positionOf(rows.at(-1)!);
    }
  }

  return {
    /** One page of entries after the request's position, and the cursor of the next page (null on the last). */
    async page(merchantId: string, request: Pick<ListRequest, 'filters' | 'limit' | 'after'>): Promise<z.infer<typeof InvoiceList>> {
      // One row more than asked tells whether a next page exists without a count.
      const rows = await read(merchantId, request.filters, request.after, request.limit + 1);
      const page = rows.slice(0, request.limit);
      return { invoices: page.map(entryOf), next_cursor: rows.length > request.limit ? encodeCursor(positionOf(page.at(-1)!)) : null };
    },

    /**
     * Every matching invoice as CSV text: the header line, then one string per chunk of
     * EXPORT_CHUNK_ROWS invoices, each read only when the consumer asks for it (a slow reader holds
     * one chunk, not the export). The first chunk is read before this resolves, so a database that
     * cannot be read fails the call rather than the stream.
     */
    async csv(merchantId: string, filters: InvoiceFilters): Promise<AsyncIterable<string>> {
      const chunks = chunksOf(merchantId, filters);
      const first = await chunks.next();
      const header = csvLine([...invoiceCsvColumns, ...extra.map((field) => field.name)]);
      const lines = (rows: InvoiceRow[]) => rows.map((row) => csvLine(csvFields(row))).join('');
      return (async function* () {
        yield header;
        if (first.done) return;
        yield lines(first.value);
        for await (const rows of chunks) yield lines(rows);
      })();
    },
  };
}

export type InvoiceLists = ReturnType<typeof createInvoiceLists>;
