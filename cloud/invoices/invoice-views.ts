import type * as z from 'zod';
import type { InvoiceListEntry, InvoiceStatus } from '../../shared/index.ts';
import { chainModule } from '../../core/chains/registry.ts';
import type { InvoiceRow } from '../../core/invoices/invoice.repository.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(Number(ms)));

export function amountText(row: InvoiceRow): string {
  return chainModule(row.chain).amountText(row);
}

export function listEntry(row: InvoiceRow): z.infer<typeof InvoiceListEntry> {
  return {
    invoice_id: row.invoice_id,
    chain: row.chain,
    asset: row.asset,
    amount: amountText(row),
    receive_address: row.receive_address,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    created_at: iso(Number(row.created_at)),
    paid_at: isoOrNull(row.paid_at),
    expires_at: iso(Number(row.expires_at)),
  };
}
