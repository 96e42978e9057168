/**
 * Fixed-address mode: every invoice shares one receive address, so the exact amount tells
 * invoices apart. Encoding, with d nonce digits (default 4):
 *
 *   amount_units = ceil(requested_units / 10^d) * 10^d + nonce,   1 <= nonce <= 10^d - 1
 *
 * With d = 4 the requested amount is rounded UP to whole cents (the merchant never receives
 * less than asked) and the nonce fills the last 4 of the 6 decimals: $12.34 with nonce 417 is
 * 12.340417. Nonce 0 is never used, so a payer who rounds to the cent pays no invoice (orphan).
 * Limits: one rounded amount has 9,999 nonces; an invoice holds its amount from creation until
 * its expiry plus the quarantine, so at most 9,999 invoices of the same cent amount can be
 * reserved at once per receive address (503 `capacity` beyond that). The reservation spans both
 * tokens, so paying USDT for a USDC invoice's amount can never pay a different invoice.
 */
export const DEFAULT_NONCE_DIGITS = 4;

/** Fixed-address invoices live one hour (SPEC, Limits). */
export const FIXED_INVOICE_LIFETIME_MS = 60 * 60_000;

/**
 * After its invoice ends, an amount stays reserved this long, so a late payment for an old
 * invoice is reported as an orphan and can never pay a new invoice with the same amount.
 */
export const NONCE_QUARANTINE_MS = 24 * 60 * 60_000;

export function nonceStep(digits: number): bigint {
  return 10n ** BigInt(digits);
}

/** The requested amount rounded up to the nonce step (whole cents by default). */
export function roundedBaseUnits(requestedUnits: bigint, digits: number): bigint {
  const step = nonceStep(digits);
  return ((requestedUnits + step - 1n) / step) * step;
}

export function maxNonce(digits: number): number {
  return Number(nonceStep(digits)) - 1;
}

/**
 * How far a block's timestamp may lag the service's clock at an invoice's creation and still pay
 * it: a transfer counts for a fixed-address invoice only if its block time is not before the
 * invoice's `created_at` minus this. Block producers and this host each keep their own clock;
 * five minutes covers NTP drift and a sequencer's timestamp lag, and stays far below
 * NONCE_QUARANTINE_MS, so the windows of two invoices holding one amount never overlap.
 */
export const CHAIN_CLOCK_SKEW_MS = 5 * 60_000;

/** One nonce's lease of a rounded amount: held until `reserved_until`. */
interface NonceLease {
  nonce: number;
  reserved_until: number;
}

/**
 * The nonces of a rounded amount free at `now`, in the order to try them: never leased first
 * (lowest first), then lapsed ones by how long ago they lapsed (longest first). Rotating rather
 * than taking the lowest free one keeps an amount unused for as long as the pool allows, so a
 * shop selling at one price does not hand out the amount of an invoice paid a day ago.
 */
export function noncesToTry(digits: number, leases: readonly NonceLease[], now: number): number[] {
  const leased = new Map(leases.map((lease) => [lease.nonce, Number(lease.reserved_until)]));
  const fresh: number[] = [];
  for (let nonce = 1; nonce <= maxNonce(digits); nonce++) if (!leased.has(nonce)) fresh.push(nonce);
  const lapsed = leases.filter((lease) => Number(lease.reserved_until) <= now && lease.nonce >= 1 && lease.nonce <= maxNonce(digits));
  lapsed.sort((a, b) => Number(a.reserved_until) - Number(b.reserved_until) || a.nonce - b.nonce);
  return [...fresh, ...lapsed.map((lease) => lease.nonce)];
}
