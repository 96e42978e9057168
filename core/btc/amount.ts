const SATS_PER_BTC = 100_000_000n;

/** Exact decimal BTC string with 8 decimals, e.g. 1000 → "0.00001000". */
export function satsToBtc(sats: number | bigint): string {
  const value = BigInt(sats);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / SATS_PER_BTC}.${(abs % SATS_PER_BTC).toString().padStart(8, '0')}`;
}
