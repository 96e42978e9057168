import { AmountError } from './amount-error.ts';
/** USDC and USDT use 6 decimals on the EVM chains; `amount_token_units` counts these units. */
export const TOKEN_DECIMALS = 6;

/** `amount_token_units` is a JSON integer: keep it exact in every client's double. */
export const MAX_TOKEN_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

export { AmountError } from './amount-error.ts';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Exact token units for a USD amount given as decimal text (the JSON number grammar, exponent
 * forms such as "1e-7" included), 1 token = 1 USD. Integer string arithmetic only: no float
 * ever touches the amount.
 *
 * More than 6 significant decimals is refused rather than rounded: the payer cannot send a
 * fraction of a unit, and rounding would silently change the price the merchant asked for.
 * Trailing zeros are not significant ("1.50000000" is 1.5).
 */
export function usdTextToUnits(text: string): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new AmountError('not_a_number', 'amount_usd must be a decimal number');
  const [, sign, whole, fraction = '', exponentText = '0'] = m;
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(exponentText) - fraction.length;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  if (digits === '' || sign === '-') throw new AmountError('not_positive', 'amount_usd must be greater than 0');
  const shift = exponent + TOKEN_DECIMALS;
  if (shift < 0) throw new AmountError('too_precise', `amount_usd has more than ${TOKEN_DECIMALS} decimals`);
  if (digits.length + shift > String(MAX_TOKEN_UNITS).length) throw new AmountError('too_large', 'amount_usd is too large');
  const units = BigInt(digits + '0'.repeat(shift));
  if (units > MAX_TOKEN_UNITS) throw new AmountError('too_large', 'amount_usd is too large');
  return units;
}

/** "12.500000" for 12500000n: the decimal token amount with all 6 decimals. */
export function unitsToDecimal(units: bigint): string {
  const text = units.toString().padStart(TOKEN_DECIMALS + 1, '0');
  return `${text.slice(0, -TOKEN_DECIMALS)}.${text.slice(-TOKEN_DECIMALS)}`;
}

/**
 * amount_usd as a response carries it, a JSON number (the spec's type; Node 20's JSON.stringify
 * writes only doubles): the double nearest the stored decimal text. It reads back as the same
 * 6-decimal amount below 2^33 dollars, where doubles are finer than a unit; `amount_token` and
 * `amount_token_units` carry every digit whatever the size.
 */
export function usdJsonNumber(text: string): number {
  return Number(text);
}

/**
 * The token amount of an invoice or checkout view: under the chain-neutral names and, for the
 * clients that read them, the spec's names (deprecated; they meant USDT too).
 */
export function tokenAmountFields(units: bigint) {
  const amount = unitsToDecimal(units);
  return { amount_token: amount, amount_token_units: Number(units), amount_usdc: amount, amount_usdc_units: Number(units) };
}
