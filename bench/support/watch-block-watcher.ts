/**
 * The watching side of bench/watch-block.ts, in a process of its own so its RSS is the watcher's
 * alone (the local chain lives in the parent). Protocol over IPC: the parent starts it with
 * { kind, url, open, paid }; it stores `open` invoices, loads them into a watcher and answers
 * 'ready' with the addresses to pay; the parent mines the block and sends 'go'; it processes the
 * block and answers 'passed' (so the parent can count the source requests of the pass alone), then
 * on 'more' measures the floor figures and answers 'result'.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as bitcoin from 'bitcoinjs-lib';
import { createBitcoinCoreSource } from '../../listener/btc/bitcoin-core-source.ts';
import type { ChainSource } from '../../listener/btc/chain-source.ts';
import { createEsploraSource } from '../../listener/btc/esplora-source.ts';
import { computeGapReport } from '../../listener/btc/gap-report.ts';
import { createBtcWatcher } from '../../listener/btc/watcher.ts';
import { systemClock } from '../../listener/clock.ts';
import { openDatabase } from '../../listener/db/database.ts';
import { silentLogger } from '../../listener/log.ts';

export interface WatcherStart {
  kind: ChainSource['kind'];
  url: string;
  open: number;
  paid: number;
}

export type WatcherMessage =
  | { type: 'ready'; addresses: string[]; rssLoadedMb: number; rssIdleMb: number }
  | { type: 'passed'; ms: number; rssMb: number }
  | { type: 'result'; fetchParseMs: number; gapMs: number; confirmed: number; events: number; maxRssMb: number };

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const send = (message: WatcherMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
const next = () => new Promise<unknown>((resolve) => process.once('message', resolve));

const start = (await next()) as WatcherStart;
const rssIdleMb = mb(process.memoryUsage().rss);
const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
// A database file, as in production: its pages live in the OS cache, not in this process.
const database = await openDatabase(`sqlite:${join(dir, 'service.db')}`);

// Watched scripts are what matters to the lookup; random key hashes stand in for derived addresses.
const regtest = bitcoin.networks.regtest;
let addresses: string[] = [];
const now = Date.now();
for (let i = 0; i < start.open; i += 500) {
  const batch = Array.from({ length: Math.min(500, start.open - i) }, () => bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: regtest }).address!);
  if (addresses.length < start.paid) addresses.push(...batch.slice(0, start.paid - addresses.length));
  await database.db
    .insertInto('invoices')
    .values(
      batch.map((address, j) => ({
        invoice_id: `inv_${i + j}`,
        merchant_id: 'bench',
        chain: 'btc',
        asset: 'BTC',
        network: 'regtest',
        receive_address: address,
        child_index: i + j,
        derivation_path: null,
        key_id: 'bench',
        amount_sats: 10_000,
        amount_units: null,
        memo: null,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        expires_at: now + 3_600_000,
        created_at: now - start.open + i + j,
        updated_at: now - start.open + i + j,
      })),
    )
    .execute();
}

const source =
  start.kind === 'esplora' ? createEsploraSource({ baseUrl: start.url, fetch }) : createBitcoinCoreSource({ url: start.url, fetch });
const watcher = createBtcWatcher({ db: database.db, merchantId: 'bench', keyId: 'bench', source, clock: systemClock, logger: silentLogger });
await watcher.syncOnce(); // loads the watched set and starts at the current tip
global.gc?.();
await send({ type: 'ready', addresses, rssLoadedMb: mb(process.memoryUsage().rss), rssIdleMb });
addresses = [];

await next();
const started = performance.now();
await watcher.syncOnce();
const ms = performance.now() - started;
await send({ type: 'passed', ms, rssMb: mb(process.memoryUsage().rss) });
await next();

// The floor of the same pass: downloading and parsing the block alone.
const tip = await source.tipHeight();
const fetchStarted = performance.now();
await source.block((await source.blockHash(tip))!, tip);
const fetchParseMs = performance.now() - fetchStarted;

const gapStarted = performance.now();
await computeGapReport(database.db, 'bench', 'bench');
const gapMs = performance.now() - gapStarted;

const count = async (table: 'invoices' | 'events') => {
  let query = database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  if (table === 'invoices') query = query.where('status', '=', 'confirmed');
  return Number((await query.executeTakeFirstOrThrow()).n);
};
const confirmed = await count('invoices');
const events = await count('events');
await database.close();
rmSync(dir, { recursive: true, force: true });
await send({ type: 'result', fetchParseMs, gapMs, confirmed, events, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
process.disconnect();
