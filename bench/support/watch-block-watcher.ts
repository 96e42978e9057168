import { defaultChains } from '../../core/chains/default-chains.ts';
/**
 * The watching side of bench/watch-block.ts, in a process of its own so its RSS is the watcher's
 * alone (the local chain and the invoice set-up live in the parent). Protocol over IPC: the parent
 * sends { kind, url, databaseUrl } of a database it filled; this loads the watcher and answers
 * 'ready'; the parent mines the block and sends 'go'; this processes it and answers 'passed' (so the
 * parent counts the source requests of the pass alone), then on 'more' measures the floor figures
 * and answers 'result'.
 */
import type { ChainSource } from '../../core/btc/chain-source.ts';
import { createBitcoinCoreSource } from '../../core/btc/bitcoin-core-source.ts';
import { createEsploraSource } from '../../core/btc/esplora-source.ts';
import { computeGapReport } from '../../core/btc/gap-report.ts';
import { createBtcWatcher } from '../../core/btc/watcher.ts';
import { merchantScope } from '../../core/btc/btc-payment.repository.ts';
import { systemClock } from '../../core/clock.ts';
import { openCoreDatabase } from '../../core/schema.ts';
import { silentLogger } from '../../core/log.ts';
import { createMemoryStatusFeed } from '../../core/invoices/status-feed.ts';

export interface WatcherStart {
  kind: ChainSource['kind'];
  url: string;
  databaseUrl: string;
}

export type WatcherMessage =
  | { type: 'ready'; rssLoadedMb: number; heapLoadedMb: number; rssIdleMb: number; loadMs: number }
  | { type: 'passed'; ms: number; cpuMs: number; rssMb: number }
  | { type: 'result'; fetchParseMs: number; gapMs: number; confirmed: number; events: number; maxRssMb: number };

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const send = (message: WatcherMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
const next = () => new Promise<unknown>((resolve) => process.once('message', resolve));

const start = (await next()) as WatcherStart;
const rssIdleMb = mb(process.memoryUsage().rss);
const database = await openCoreDatabase(start.databaseUrl, defaultChains);
const source =
  start.kind === 'esplora' ? createEsploraSource({ baseUrl: start.url, fetch }) : createBitcoinCoreSource({ url: start.url, fetch });
const watcher = createBtcWatcher({ db: database.db, feed: createMemoryStatusFeed(), scope: merchantScope('bench'), keyId: 'bench', source, clock: systemClock, logger: silentLogger });
const loadStarted = performance.now();
await watcher.syncOnce(); // loads the watched set and starts at the current tip
const loadMs = performance.now() - loadStarted;
await send({ type: 'ready', rssLoadedMb: mb(process.memoryUsage().rss), heapLoadedMb: mb(process.memoryUsage().heapUsed), rssIdleMb, loadMs });

await next();
const started = performance.now();
// CPU time as well as wall time: on a shared machine the wall time also counts waiting for a core.
const cpuStarted = process.cpuUsage();
await watcher.syncOnce();
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
await send({ type: 'passed', ms, cpuMs: (cpu.user + cpu.system) / 1000, rssMb: mb(process.memoryUsage().rss) });
await next();
// The floor of the same pass: downloading and parsing the block alone.
const tip = await source.tipHeight();
const fetchStarted = performance.now();
await source.block((await source.blockHash(tip))!, tip);
const fetchParseMs = performance.now() - fetchStarted;

const gapStarted = performance.now();
await computeGapReport(database.db, 'bench');
const gapMs = performance.now() - gapStarted;

const count = async (table: 'invoices' | 'events') => {
  let query = database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  if (table === 'invoices') query = query.where('status', '=', 'confirmed');
  return Number((await query.executeTakeFirstOrThrow()).n);
};
const confirmed = await count('invoices');
const events = await count('events');
await database.close();
await send({ type: 'result', fetchParseMs, gapMs, confirmed, events, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
process.disconnect();
