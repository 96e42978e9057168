import type { CreateInvoiceRequest } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import type { InvoiceCreation } from '../invoices/chain-adapter.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import { methodFor } from '../invoices/payment-method.ts';
import { AmountError, usdTextToUnits } from '../invoices/token-amount.ts';
import type { EvmReceiverOptions } from './methods/evm-method.ts';
import { evmPaymentMethods } from './methods/evm-methods.ts';
import { assetOf, type TokenSymbol } from './tokens.ts';

export type { EvmReceiverOptions } from './methods/evm-method.ts';
export { EVM_ADDRESS_COUNTER } from './methods/derived-address.ts';

export type EvmInvoiceDeps = InvoiceCreation & EvmReceiverOptions;

/**
 * Creates an EVM invoice through the payment method the merchant's settings offer for the asset.
 * `request.amount_usd` is exact decimal text, turned into token units once, here.
 */
export async function createEvmInvoice(deps: EvmInvoiceDeps, request: CreateInvoiceRequest) {
  const amountText = requiredAmount(request.amount_usd, 'amount_usd', 'new');
  const { base } = deps;
  const symbol: TokenSymbol = request.asset ?? 'usdc';
  const token = base.tokens.get(symbol);
  if (!token) throw new ServiceError('asset_disabled', `${symbol} is not enabled on ${base.chain} (add it to the chain's token list, e.g. MERCHANT_EVM_TOKENS).`);
  let units: bigint;
  try {
    units = usdTextToUnits(amountText);
  } catch (error) {
    if (error instanceof AmountError) throw new ServiceError('invalid_amount', `${error.message} (${error.code})`);
    throw error;
  }
  const method = methodFor(evmPaymentMethods, deps, assetOf(symbol));
  if (!method) {
    // Only a fixed address receives what a derived one does not (USDT, or no xpub).
    throw new ServiceError('asset_disabled', `${symbol} needs a fixed receive address (MERCHANT_EVM_ADDRESS or the chain's own, e.g. MERCHANT_BASE_ADDRESS).`);
  }
  return method.receive(deps, deps, { request, symbol, token, units, amountText });
}
