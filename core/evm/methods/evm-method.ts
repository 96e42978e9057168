import type { Kysely } from 'kysely';
import type { CreateInvoiceRequest } from '../../../shared/index.ts';
import type { CoreTables } from '../../schema.ts';
import type { InvoiceRow } from '../../invoices/invoice.repository.ts';
import type { InvoiceCreation } from '../../invoices/chain-adapter.ts';
import type { ReceivingMethod } from '../../invoices/payment-method.ts';
import type { AddressClaim } from '../address-claims.ts';
import type { EvmConfig } from '../evm-config.ts';
import type { EvmMethodFields } from '../evm-invoice.mapper.ts';
import type { EvmInvoiceRow, TransferRow } from '../evm-transfer.repository.ts';
import { assetOf, type TokenSymbol } from '../tokens.ts';

/** A merchant's receive settings on one EVM chain (the chain is `base.chain`). */
export interface EvmReceiverOptions {
  base: EvmConfig;
  /** Fixed-address nonce digits; tests shrink the pool to reach exhaustion quickly. */
  nonceDigits?: number;
  quarantineMs?: number;
}

/** An invoice request as the EVM receiver checked it: the token, and the amount in its units. */
export interface EvmOrder {
  request: CreateInvoiceRequest;
  symbol: TokenSymbol;
  token: string;
  units: bigint;
  amountText: string;
}

/** What an EVM chain's watcher records: one token transfer to a watched address. */
export type EvmPayment = Pick<TransferRow, 'to_address' | 'token_address' | 'value' | 'block_time'>;

/** A payment method that stores EVM invoices, with how the watcher settles transfers to its addresses. */
export interface EvmPaymentMethod extends ReceivingMethod<EvmReceiverOptions, EvmPayment, EvmOrder> {
  /** The claim its receive addresses hold (address-claims.ts): a transfer is settled by the method of its address's claim. */
  readonly addressClaim: AddressClaim;
  /** True: one transfer of the exact amount pays the invoice, and one matching no invoice is reported (payment.orphan). False: transfers add up, and a stray one is ignored. */
  readonly exactAmount: boolean;
  /** Only fields the contract's EVM invoice has. */
  display(invoice: InvoiceRow): EvmMethodFields;
  /** The invoice column set on its rows alone (`owns`), for the queries that judge rows of every method at once. */
  readonly ownedBy: 'child_index' | 'nonce';
  /** Sources that must report a transfer to its addresses, given the operator's minimum. */
  sourcesNeeded(minSources: number): number;
  /** The invoices these transfers (to this method's addresses) may pay, by transfer. */
  candidates(db: Kysely<CoreTables>, chain: string, transfers: readonly TransferRow[]): Promise<Map<TransferRow, EvmInvoiceRow>>;
}

/** The columns every EVM invoice fills alike, whatever its method. */
export function evmInvoiceRow(
  creation: Pick<InvoiceCreation, 'newInvoiceId' | 'merchantId' | 'shopColumns'>,
  base: Pick<EvmConfig, 'chain' | 'chainId'>,
  order: EvmOrder,
  now: number,
): Omit<InvoiceRow, 'receive_address' | 'child_index' | 'derivation_path' | 'key_id' | 'amount_units' | 'nonce' | 'expires_at'> {
  return {
    invoice_id: creation.newInvoiceId(),
    merchant_id: creation.merchantId,
    chain: base.chain,
    asset: assetOf(order.symbol),
    network: String(base.chainId),
    amount_sats: null,
    token_address: order.token,
    amount_usd: order.amountText,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    created_at: now,
    updated_at: now,
    address_duplicate_of: null,
    ...creation.shopColumns,
  };
}

/** The rule both EVM methods share: a transfer of the invoice's token to its address, mined by its expiry. */
export const reachesInTime = (invoice: InvoiceRow, payment: EvmPayment) =>
  payment.to_address === invoice.receive_address && payment.token_address === invoice.token_address && Number(payment.block_time) <= Number(invoice.expires_at);
