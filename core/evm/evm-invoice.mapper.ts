import type { BaseInvoice, EvmChainName, InvoiceStatus } from '../../shared/index.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { invoiceShopFields } from '../invoices/shop-fields.ts';
import { tokenAmountFields, usdJsonNumber } from '../invoices/token-amount.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** The fields only a payment method shows (methods/): the fixed-address mode's nonce and token. */
export type EvmMethodFields = Partial<Pick<BaseInvoice, 'mode' | 'nonce' | 'token_address'>>;

/** A stored EVM invoice in the contract's shape, with the fields its payment method shows. */
export function evmInvoiceOf(row: InvoiceRow, methodFields: EvmMethodFields): BaseInvoice {
  const units = BigInt(requiredAmount(row.amount_units, 'amount_units', row.invoice_id));
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
        ...methodFields,
    ...invoiceShopFields(row),
    // Filled by the invoice engine from the payment methods it serves (core/x402).
    x402_url: null,
  };
}
