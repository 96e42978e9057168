import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/schema.ts';
import { noShopColumns } from '../../core/invoices/invoice.tables.ts';
import type { InvoiceRow } from '../../core/invoices/invoice.repository.ts';

/** The fixed token contract and receive address of the EVM rows (checksummed, as stored). */
export const ROW_TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const ROW_EVM_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/**
 * A stored invoice row written straight to the table (no chain, no engine): a Bitcoin one unless
 * `chain` says otherwise, unpaid and expiring in a day (after `created_at` when that is later than now).
 */
export function invoiceRow(merchantId: string, invoiceId: string, fields: Partial<InvoiceRow> & { created_at: number }): InvoiceRow {
  const evm = fields.chain !== undefined && fields.chain !== 'btc';
  return {
    invoice_id: invoiceId,
    merchant_id: merchantId,
    chain: 'btc',
    asset: evm ? 'USDC' : 'BTC',
    network: evm ? '8453' : 'mainnet',
    receive_address: evm ? ROW_EVM_ADDRESS : `bc1q${invoiceId.toLowerCase().replace(/[^a-z0-9]/g, '')}`,
    child_index: null,
    derivation_path: null,
    key_id: null,
    amount_sats: evm ? null : 1000,
    amount_units: evm ? '2500000' : null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: Math.max(fields.created_at, Date.now()) + 86_400_000,
    updated_at: fields.created_at,
    token_address: evm ? ROW_TOKEN : null,
    nonce: null,
    amount_usd: evm ? '2.5' : null,
    address_duplicate_of: null,
    ...noShopColumns,
    ...fields,
  };
}

/** Inserts rows in batches, in one transaction per batch (SQLite's bound on statement parameters). */
export async function insertRows(db: Kysely<CoreTables>, rows: readonly InvoiceRow[], batch = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += batch) {
    await db.insertInto('invoices').values(rows.slice(i, i + batch)).execute();
  }
}

/** RFC 4180 records of a CSV text (CRLF line ends, quoted fields with doubled quotes). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') record.push(field), (field = '');
    else if (char === '\r' && text[i + 1] === '\n') record.push(field), records.push(record), (record = []), (field = ''), i++;
    else field += char;
  }
  if (field !== '' || record.length) throw new Error('CSV text does not end with CRLF');
  return records;
}
