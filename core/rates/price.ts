import { priceCurrencies, type AssetFacts, type PriceCurrency } from '../../shared/index.ts';
import { ceil, div, inverse, mul, parseDecimal, ratio, toDecimalText, type Ratio } from './ratio.ts';
import { pairOf } from './rate-source.ts';
import type { AgreedRate, Rates } from './rates.ts';

/** How many decimals a recorded rate keeps: the amount is computed from the exact median, the text is for reading. */
export const RATE_DECIMALS = 8;

/** A fiat price turned into the asset: the amount in the asset's smallest unit, and the rate it was converted at. */
export interface PricedAmount {
  /** In the asset's smallest unit (sats, token base units), rounded up. */
  units: bigint;
  /** Price currency per one asset unit, decimal text; null for a pegged asset priced in its peg. */
  rate: string | null;
  rateSources: string[] | null;
  rateAt: number | null;
}

/**
 * Converts `amount` of `currency` into `asset` (what the payer sends, with its decimals and peg):
 *
 * - an asset pegged to the currency (USDC priced in USD) is 1:1, no rate asked;
 * - an asset pegged to another currency (USDC priced in EUR) goes through the currency's rate to the
 *   peg (EUR/USD: dollars per euro);
 * - any other asset (BTC) through its own rate in the currency (BTC/EUR: euros per bitcoin).
 *
 * The amount is rounded up to the asset's smallest unit, from the exact agreed rate: the payer is
 * never asked for less than the price, and for at most one unit more.
 */
export async function convertPrice(rates: Pick<Rates, 'rate'>, amount: string, currency: PriceCurrency, asset: { symbol: string } & AssetFacts): Promise<PricedAmount> {
  const price = parseDecimal(amount);
  if (!price || priceCurrencies[currency] === undefined) throw new RangeError(`not a price: ${amount} ${currency}`);
  const unit = ratio(10n ** BigInt(asset.decimals));
  if (asset.peggedTo === currency) return { units: ceil(mul(price, unit)), rate: null, rateSources: null, rateAt: null };
  let agreed: AgreedRate;
  let perAsset: Ratio;
  if (asset.peggedTo) {
    agreed = await rates.rate(pairOf(currency, asset.peggedTo));
    perAsset = inverse(agreed.rate);
  } else {
    agreed = await rates.rate(pairOf(asset.symbol, currency));
    perAsset = agreed.rate;
  }
  return { units: ceil(mul(div(price, perAsset), unit)), rate: toDecimalText(perAsset, RATE_DECIMALS), rateSources: agreed.sources, rateAt: agreed.at };
}
