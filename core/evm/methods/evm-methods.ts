import type { BaseInvoice } from '../../../shared/index.ts';
import type { InvoiceRow } from '../../invoices/invoice.repository.ts';
import { methodOf } from '../../invoices/payment-method.ts';
import type { AddressClaim } from '../address-claims.ts';
import { evmInvoiceOf } from '../evm-invoice.mapper.ts';
import { evmDerivedAddress } from './derived-address.ts';
import type { EvmPaymentMethod } from './evm-method.ts';
import { evmFixedAddress } from './fixed-address.ts';

/**
 * The EVM family's receiving methods, in order of preference: a chain's receiver takes the first
 * one a merchant's settings offer for the asset. A new method is one module added here.
 */
export const evmPaymentMethods: readonly EvmPaymentMethod[] = [evmDerivedAddress, evmFixedAddress];

/** A stored EVM invoice in the contract's shape, as its payment method shows it. */
export const rowToEvmInvoice = (row: InvoiceRow): BaseInvoice => evmInvoiceOf(row, methodOf(evmPaymentMethods, row).display(row));

/** The method whose receive addresses hold this claim: it settles the transfers to them. */
export function evmMethodOfClaim(claim: AddressClaim): EvmPaymentMethod {
  const method = evmPaymentMethods.find((candidate) => candidate.addressClaim === claim);
  if (!method) throw new Error(`no EVM payment method holds ${claim} addresses`);
  return method;
}
