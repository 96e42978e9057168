import type { Kysely } from 'kysely';
import type { CoreTables } from '../schema.ts';

const INSERT_PAGE = 500;

/** The stored best chain of `network` from its lowest height up, each header's 80 bytes. */
export async function loadHeaders(db: Kysely<CoreTables>, network: string): Promise<{ height: number; header: Uint8Array }[]> {
  const rows = await db.selectFrom('btc_headers').select(['height', 'header']).where('network', '=', network).orderBy('height').execute();
  return rows.map((row) => ({ height: Number(row.height), header: new Uint8Array(row.header) }));
}

/** Replaces the stored best chain of `network` from `fromHeight` up (a reorg rewrites what it changed). */
export async function saveHeaders(db: Kysely<CoreTables>, network: string, fromHeight: number, headers: readonly { height: number; raw: Uint8Array }[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('btc_headers').where('network', '=', network).where('height', '>=', fromHeight).execute();
    for (let i = 0; i < headers.length; i += INSERT_PAGE) {
      const page = headers.slice(i, i + INSERT_PAGE).map((h) => ({ network, height: h.height, header: Buffer.from(h.raw) }));
      await trx.insertInto('btc_headers').values(page).execute();
    }
  });
}

/** Forgets the stored chain of `network` (its checkpoint changed with a release). */
export async function clearHeaders(db: Kysely<CoreTables>, network: string): Promise<void> {
  await db.deleteFrom('btc_headers').where('network', '=', network).execute();
}

/** The stored headers of `network` at these heights, by height: the verified chain's own record of each block. */
export async function headersAt(db: Kysely<CoreTables>, network: string, heights: readonly number[]): Promise<Map<number, Uint8Array>> {
  const found = new Map<number, Uint8Array>();
  for (let i = 0; i < heights.length; i += INSERT_PAGE) {
    const page = heights.slice(i, i + INSERT_PAGE);
    const rows = await db.selectFrom('btc_headers').select(['height', 'header']).where('network', '=', network).where('height', 'in', page).execute();
    for (const row of rows) found.set(Number(row.height), new Uint8Array(row.header));
  }
  return found;
}
