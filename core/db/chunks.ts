/**
 * Rows per statement: a few thousand bound parameters at most, far below SQLite's (32,766) and
 * Postgres's (65,535) limits, so a statement over a list that grows with the data (a block's
 * payments, the merchants sharing a key) is split into several instead of refused.
 */
export const ROWS_PER_STATEMENT = 500;

/** `items` in consecutive slices of at most `size`. */
export function chunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
