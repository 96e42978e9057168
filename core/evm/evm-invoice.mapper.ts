import * as z from 'zod';
import type { BaseFixedInvoiceCreated, BaseInvoice, BaseXpubInvoiceCreated, EvmChainName, InvoiceStatus } from '../../shared/index.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { tokenAmountFields, usdJsonNumber } from './amount.ts';
import { erc20TransferUri } from './eip681.ts';

type BaseXpubCreated = z.infer<typeof BaseXpubInvoiceCreated>;
type BaseFixedCreated = z.infer<typeof BaseFixedInvoiceCreated>;

const iso = (ms: number) => new Date(ms).toISOString();

export function rowToEvmInvoice(row: InvoiceRow): BaseInvoice {
  const units = BigInt(requiredAmount(row.amount_units, 'amount_units', row.invoice_id));
  const fixed = row.nonce !== null;
  return {
    invoice_id: row.invoice_id,
    merchant_id: row.merchant_id,
    chain: row.chain as EvmChainName,
    asset: row.asset as 'USDC' | 'USDT',
    receive_address: row.receive_address,
    child_index: row.child_index,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    paid_at: row.paid_at === null ? null : iso(row.paid_at),
    verification: row.verification,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    amount_usd: usdJsonNumber(requiredAmount(row.amount_usd, 'amount_usd', row.invoice_id)),
    ...tokenAmountFields(units),
    ...(fixed ? { mode: 'fixed-address' as const, nonce: row.nonce!, token_address: row.token_address! } : {}),
    // Filled by the invoice engine from the payment methods it serves (core/x402).
    x402_url: null,
  };
}

export function rowToCreatedEvmXpubInvoice(row: InvoiceRow, chainId: number, explorerUrl: string): BaseXpubCreated {
  const { mode: _mode, nonce: _nonce, token_address: _token, ...invoice } = rowToEvmInvoice(row);
  return {
    ...invoice,
    asset: 'USDC',
    qr_uri: erc20TransferUri(row.token_address!, chainId, row.receive_address, BigInt(row.amount_units!)),
    derivation_path: row.derivation_path!,
    verify_url: `${explorerUrl}/address/${row.receive_address}`,
  };
}

export function rowToCreatedEvmFixedInvoice(row: InvoiceRow, chainId: number): BaseFixedCreated {
  const invoice = rowToEvmInvoice(row);
  return {
    invoice_id: invoice.invoice_id,
    chain: invoice.chain,
    asset: invoice.asset,
    mode: 'fixed-address',
    nonce: row.nonce!,
    token_address: row.token_address!,
    receive_address: invoice.receive_address,
    amount_usd: invoice.amount_usd,
    ...tokenAmountFields(BigInt(row.amount_units!)),
    status: invoice.status,
    expires_at: invoice.expires_at,
    qr_uri: erc20TransferUri(row.token_address!, chainId, row.receive_address, BigInt(row.amount_units!)),
    x402_url: invoice.x402_url,
  };
}
