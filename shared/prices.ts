import * as z from 'zod';

/**
 * The fiat currencies an invoice can be priced in (ISO 4217), each with its minor unit: the number
 * of decimals a price in it may have (the yen has none).
 */
export const priceCurrencies = { USD: 2, EUR: 2, GBP: 2, CHF: 2, CAD: 2, AUD: 2, JPY: 0 } as const;
export type PriceCurrency = keyof typeof priceCurrencies;
export const priceCurrencyCodes = Object.keys(priceCurrencies) as [PriceCurrency, ...PriceCurrency[]];

export const PriceCurrency = z.enum(priceCurrencyCodes).meta({
  id: 'PriceCurrency',
  description: `ISO 4217 code of a fiat price: ${priceCurrencyCodes.join(', ')}.`,
});

/** A price as decimal text: digits, an optional fraction; its decimals are checked against the currency's minor unit. */
export const PRICE_AMOUNT = /^(?:0|[1-9]\d{0,14})(?:\.\d+)?$/;

/** Why `amount` is no price in `currency` (null: it is one): over the currency's minor unit, or not above zero. */
export function priceAmountProblem(amount: string, currency: PriceCurrency): string | null {
  if (!PRICE_AMOUNT.test(amount)) return 'price_amount must be a decimal string such as "25.00"';
  const decimals = amount.split('.')[1]?.length ?? 0;
  const allowed = priceCurrencies[currency];
  if (decimals > allowed) return allowed === 0 ? `price_amount in ${currency} has no decimals` : `price_amount in ${currency} has at most ${allowed} decimals`;
  if (!/[1-9]/.test(amount)) return 'price_amount must be greater than 0';
  return null;
}

/** The price part of an invoice, its checkout view and invoice.confirmed: all null when it was priced in its asset. */
const OLDER = ' Absent only from listeners released before prices in a fiat currency.';
export const invoicePriceShape = {
  price_amount: z.string().nullable().optional().describe(`The fiat price the invoice was created with (decimal text in \`price_currency\`); null when it was priced in its asset.${OLDER}`),
  price_currency: PriceCurrency.nullable().optional().describe('ISO 4217 code of `price_amount`; null when priced in the asset.'),
  rate: z
    .string()
    .nullable()
    .optional()
    .describe('Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources\' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate).'),
  rate_sources: z.array(z.string()).nullable().optional().describe('The rate sources whose quotes made `rate`; null when no rate was taken.'),
  rate_at: z.iso.datetime().nullable().optional().describe('When the rate was taken; null when no rate was taken.'),
};
export type InvoicePrice = { [K in keyof typeof invoicePriceShape]-?: NonNullable<z.infer<(typeof invoicePriceShape)[K]>> | null };

export const RateSourceHealth = z
  .object({
    name: z.string().describe('The source as `RATE_SOURCES` names it (`kraken`, `coinbase`, …; the sandbox\'s are named `sandbox-…`).'),
    url: z.string().describe('Scheme, host and port of its base URL.'),
    state: z
      .enum(['idle', 'ok', 'outlier', 'garbage', 'silent'])
      .describe(
        '`idle`: not asked yet (rates are asked only when an invoice is priced in a fiat currency). `ok`: its last quote counted. `outlier`: its last quote lay beyond `RATE_MAX_SPREAD` of the median and was ignored. `garbage`: its last answer was not its API\'s documented shape or held no usable price. `silent`: its last ask got no answer (refused, timed out, an HTTP error).',
      ),
    problem: z.string().nullable().describe('What was wrong with its last answer (the outlier\'s pair and quote, the error); null when none.'),
    last_quote_at: z.iso.datetime().nullable().describe('When it last answered a usable quote.'),
    requests: z.number().int().describe('Requests sent to it since start.'),
  })
  .meta({ id: 'RateSourceHealth', description: 'One exchange rate source (docs/invoices.md, "Prices in your currency").' });
export type RateSourceHealth = z.infer<typeof RateSourceHealth>;

export const rateSourcesHealthField = z
  .array(RateSourceHealth)
  .optional()
  .describe('The exchange rate sources fiat prices are converted with: whether each one\'s last quote counted, was an outlier, garbage or missing. A source named here is outvoted, never believed alone; `ok` does not change.');
