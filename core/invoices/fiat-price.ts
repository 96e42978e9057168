import { assetFacts, chainFacts, DEFAULT_CHAIN, MAX_SATS, type CreateInvoiceRequest, type DecimalText } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import { convertPrice } from '../rates/price.ts';
import { ratio, toDecimalText } from '../rates/ratio.ts';
import type { Rates } from '../rates/rates.ts';
import type { InvoiceShopColumns } from './invoice.tables.ts';

type PriceColumns = Pick<InvoiceShopColumns, 'price_amount' | 'price_currency' | 'rate' | 'rate_sources' | 'rate_at'>;

/**
 * A request priced with price_amount / price_currency, made into the one its chain knows: the
 * chain's amount field filled from the conversion (in the asset's smallest unit when the field
 * counts those, as sats; else in whole units), and the price columns the invoice keeps. A request
 * with its amount field passes as it is.
 */
export async function resolvePrice(rates: Pick<Rates, 'rate'> | null, request: CreateInvoiceRequest): Promise<{ request: CreateInvoiceRequest; columns: PriceColumns | null }> {
  const { price_amount: amount, price_currency: currency, ...rest } = request;
  if (amount === undefined || currency === undefined) return { request, columns: null };
  if (!rates) throw new ServiceError('rate_unavailable', 'No exchange rate sources are configured (RATE_SOURCES); price the invoice in its asset.', { retryAfterS: 30 });
  const facts = chainFacts[request.chain ?? DEFAULT_CHAIN];
  const symbol = request.asset?.toUpperCase() ?? facts.assets[0];
  const asset = { symbol, ...assetFacts[symbol as keyof typeof assetFacts] };
  const priced = await convertPrice(rates, amount, currency, asset);
  const inSmallestUnit = facts.unit === 'sats';
  if (inSmallestUnit && priced.units > BigInt(MAX_SATS)) throw new ServiceError('invalid_amount', `price_amount is more than ${MAX_SATS} ${facts.unit} at today's rate`);
  const amountValue = inSmallestUnit ? Number(priced.units) : (toDecimalText(ratio(priced.units, 10n ** BigInt(asset.decimals)), asset.decimals) as DecimalText);
  return {
    request: { ...rest, [facts.amountField]: amountValue },
    columns: {
      price_amount: amount,
      price_currency: currency,
      rate: priced.rate,
      rate_sources: priced.rateSources && JSON.stringify(priced.rateSources),
      rate_at: priced.rateAt,
    },
  };
}
