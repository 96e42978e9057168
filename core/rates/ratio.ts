/**
 * Exact positive rationals over bigints, for rates and prices: a quote is decimal text, a cross
 * rate its inverse, a median the mean of two; none of it may pass through a float.
 */
export interface Ratio {
  readonly n: bigint;
  /** Always > 0. */
  readonly d: bigint;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/;

const gcd = (a: bigint, b: bigint): bigint => {
  while (b) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
};

export function ratio(n: bigint, d: bigint = 1n): Ratio {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/** Decimal text ("97123.45", "1.2e-3") as an exact ratio; null for anything else (signs, words, blanks). */
export function parseDecimal(text: string): Ratio | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, whole, fraction = '', exponentText = '0'] = m;
  const exponent = Number(exponentText) - fraction.length;
  const digits = BigInt(whole + fraction);
  return exponent >= 0 ? ratio(digits * 10n ** BigInt(exponent)) : ratio(digits, 10n ** BigInt(-exponent));
}

export const mul = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.n, a.d * b.d);
export const div = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d, a.d * b.n);
export const add = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d - b.n * a.d, a.d * b.d);
export const inverse = (a: Ratio): Ratio => ratio(a.d, a.n);
export const compare = (a: Ratio, b: Ratio): number => {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
};
export const abs = (a: Ratio): Ratio => (a.n < 0n ? ratio(-a.n, a.d) : a);

/** The smallest integer not below `a`: an amount rounded up, so the payer is never asked for less than the price. */
export function ceil(a: Ratio): bigint {
  const q = a.n / a.d;
  return a.n % a.d === 0n || a.n < 0n ? q : q + 1n;
}

/** Decimal text with at most `decimals` decimals, rounded half up, trailing zeros dropped ("0.92592593", "97000"). */
export function toDecimalText(a: Ratio, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const scaled = (a.n * scale * 2n + a.d) / (2n * a.d);
  const text = scaled.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
