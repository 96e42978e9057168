import type { NwcWalletInfo } from './nwc-client.ts';

/** NIP-47 methods that move money out of the wallet: a connection offering any of them is refused. */
export const SPENDING_METHODS = ['pay_invoice', 'multi_pay_invoice', 'pay_keysend', 'multi_pay_keysend', 'pay_offer'] as const;
/** What receiving needs: an invoice per invoice, and its state when a notification was missed. */
export const RECEIVING_METHODS = ['make_invoice', 'lookup_invoice'] as const;

/**
 * Why this connection must not be used, or null when it may only receive. `setting` names where the
 * connection came from (MERCHANT_NWC_URL, the dashboard's field), so the message says what to change.
 */
export function connectionRefusal(info: Pick<NwcWalletInfo, 'methods'>, setting: string): string | null {
  const spends = SPENDING_METHODS.filter((method) => info.methods.includes(method));
  if (spends.length) {
    return `${setting}: the wallet lets this connection spend (${spends.join(', ')}). The service never holds a key that can move funds: in the wallet, create a connection that may only create and look up invoices (receive-only, no payment budget) and paste that one.`;
  }
  const missing = RECEIVING_METHODS.filter((method) => !info.methods.includes(method));
  if (missing.length) {
    return `${setting}: the wallet does not let this connection ${missing.join(' or ')}. In the wallet, create a connection with the make_invoice and lookup_invoice permissions (receive-only) and paste that one.`;
  }
  return null;
}
