import { defaultChains } from '../core/chains/default-chains.ts';
// Per-block cost of Bitcoin watching: a block of 4,000 transactions (10,000 outputs), 1,000 of them
// paying open invoices, processed with 1,000 and with 100,000 open invoices through both chain
// sources. The watcher runs in a child process of its own (bench/support/watch-block-watcher.ts) on
// a SQLite file this process filled, so its RSS is measured without the local chain (served from
// here over HTTP) and without the set-up of the invoices. The invoices were created one every
// 36 ms over the last hour and all are still open, the busiest case for the watch-set refresh.
// The watcher is compiled first and runs as JavaScript, as `npm start` runs the listener.
// Run: npx tsx bench/watch-block.ts [--quick] [--profile=<dir>]   (--quick: Esplora only; --profile: CPU and heap profiles of each watcher process)
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as bitcoin from 'bitcoinjs-lib';
import type { ChainSource } from '../core/btc/chain-source.ts';
import { openCoreDatabase } from '../core/schema.ts';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../sandbox/local-chain-server.ts';
import { compileEntry } from './support/compile.ts';
import { progress, report, round } from './support/report.ts';
import type { WatcherMessage, WatcherStart } from './support/watch-block-watcher.ts';

const TXS = 4_000;
const PAID_INVOICES = 1_000;
const TARGET_MS = 250;
const TARGET_RSS_MB = 150;
const randomAddress = () => bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!;

type Of<T extends WatcherMessage['type']> = Omit<Extract<WatcherMessage, { type: T }>, 'type'>;
type Result = Of<'result'> & Of<'passed'> & Of<'ready'> & { kind: ChainSource['kind']; open: number; requests: number; outputs: number };

const profileDir = process.argv.find((arg) => arg.startsWith('--profile='))?.slice('--profile='.length);
/** With --profile=<dir>, each watcher process writes a CPU and a heap profile there (node --cpu-prof / --heap-prof). */
const profileArgs = (kind: string, open: number) =>
  profileDir
    ? ['--cpu-prof', '--heap-prof', `--cpu-prof-dir=${profileDir}`, `--heap-prof-dir=${profileDir}`, `--cpu-prof-name=watch-${kind}-${open}.cpuprofile`, `--heap-prof-name=watch-${kind}-${open}.heapprofile`]
    : [];

progress('compiling the watcher…');
const watcherProgram = compileEntry(fileURLToPath(new URL('./support/watch-block-watcher.ts', import.meta.url)));
const chain = new LocalBtcChain();
const server = await startLocalChainServer(chain);

/** A database file with `open` open invoices; returns its URL and the addresses of the first `paid`. */
async function prepareInvoices(open: number, paid: number): Promise<{ url: string; dir: string; addresses: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const url = `sqlite:${join(dir, 'service.db')}`;
  const database = await openCoreDatabase(url, defaultChains);
  // Watched scripts are what matters to the lookup; random key hashes stand in for derived addresses.
  const addresses: string[] = [];
  const now = Date.now();
  const spacing = 3_600_000 / open;
  for (let i = 0; i < open; i += 500) {
    const batch = Array.from({ length: Math.min(500, open - i) }, randomAddress);
    if (addresses.length < paid) addresses.push(...batch.slice(0, paid - addresses.length));
    await database.db
      .insertInto('invoices')
      .values(
        batch.map((address, j) => {
          const createdAt = Math.round(now - 3_600_000 + (i + j) * spacing);
          return {
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
            expires_at: createdAt + 7_200_000,
            created_at: createdAt,
            updated_at: createdAt,
          };
        }),
      )
      .execute();
  }
  await database.close();
  return { url, dir, addresses };
}

async function run(kind: ChainSource['kind'], open: number): Promise<Result> {
  const label = `[${kind}, ${open.toLocaleString('en')} open invoices]`;
  progress(`${label} storing invoices…`);
  const prepared = await prepareInvoices(open, PAID_INVOICES);
  progress(`${label} loading the watcher…`);
  const child = fork(watcherProgram.file, [], { execArgv: profileArgs(kind, open), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: WatcherMessage[] = [];
  let wake: (() => void) | null = null;
  child.on('message', (message) => {
    messages.push(message as WatcherMessage);
    wake?.();
  });
  const exited = new Promise<void>((_, reject) => child.on('exit', (code) => reject(new Error(`watcher process exited (${code}) early`))));
  const receive = async (): Promise<WatcherMessage> => {
    while (!messages.length) await Promise.race([new Promise<void>((resolve) => (wake = resolve)), exited]);
    return messages.shift()!;
  };

  const start: WatcherStart = { kind, url: kind === 'esplora' ? server.esploraUrl : server.rpcUrl, databaseUrl: prepared.url };
  child.send(start);
  const ready = await receive();
  if (ready.type !== 'ready') throw new Error('unexpected message');

  progress(`${label} building a block of ${TXS} transactions…`);
  // Half the transactions have two payees and half one, plus change: 10,000 outputs in all;
  // the first 1,000 payees are open invoices, the rest strangers.
  let paid = 0;
  for (let t = 0; t < TXS; t++) {
    const payees = t % 2 === 0 ? 2 : 1;
    chain.pay(Array.from({ length: payees }, () => ({ address: paid < prepared.addresses.length ? prepared.addresses[paid++] : randomAddress(), value: 10_000n })));
  }
  const [block] = chain.mine(1);
  const outputs = block.block.transactions!.reduce((sum, tx) => sum + tx.outs.length, 0);

  const before = server.requestCount;
  child.send('go');
  const passed = await receive();
  if (passed.type !== 'passed') throw new Error('unexpected message');
  const requests = server.requestCount - before;
  child.send('more');
  const result = await receive();
  if (result.type !== 'result') throw new Error('unexpected message');
  // A profiled process writes its profiles on a normal exit only: let it finish.
  if (profileDir) await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  else child.kill();
  rmSync(prepared.dir, { recursive: true, force: true });
  progress(`${label} ${passed.ms.toFixed(0)} ms, ${requests} requests, watcher RSS ${passed.rssMb} MB`);
  const { type: _ready, ...loaded } = ready;
  return { ...loaded, ...passed, ...result, kind, open, requests, outputs };
}

const results: Result[] = [];
const kinds = process.argv.includes('--quick') ? (['esplora'] as const) : (['esplora', 'bitcoin-core'] as const);
for (const kind of kinds) {
  for (const open of [1_000, 100_000]) results.push(await run(kind, open));
}
await server.close();
watcherProgram.dispose();

const at = (kind: string, open: number) => results.find((r) => r.kind === kind && r.open === open)!;
const lines = [
  '',
  `watch-block: one block of ${TXS.toLocaleString('en')} transactions (${results[0].outputs.toLocaleString('en')} outputs), ${PAID_INVOICES.toLocaleString('en')} of them paying open invoices (1 confirmation each)`,
  'The watcher runs in its own process on a SQLite file; the local chain serves the block over HTTP from the parent.',
  '',
  'source         open invoices   block pass (ms)   pass CPU (ms)   of which fetch+parse (ms)   source requests   confirmed   events   watcher RSS (MB)',
  ...results.map(
    (r) =>
      `${r.kind.padEnd(14)}${r.open.toLocaleString('en').padStart(14)}${r.ms.toFixed(0).padStart(18)}${r.cpuMs.toFixed(0).padStart(16)}${r.fetchParseMs.toFixed(0).padStart(28)}` +
      `${String(r.requests).padStart(18)}${String(r.confirmed).padStart(12)}${String(r.events).padStart(9)}${String(r.rssMb).padStart(19)}`,
  ),
  '',
];
const big = at('esplora', 100_000);
const small = at('esplora', 1_000);
lines.push(
  `esplora, 100,000 vs 1,000 open invoices (baseline, same run): ${round(big.ms / small.ms)}x the time, requests ${big.requests} vs ${small.requests}`,
  `watcher process RSS with 100,000 watched addresses: ${big.rssMb} MB after the block (peak ${big.maxRssMb} MB; ${big.rssLoadedMb} MB loaded before it; ` +
    `${big.rssIdleMb} MB for the bare process with its modules; V8 heap in use once loaded ${big.heapLoadedMb} MB vs ${small.heapLoadedMb} MB at 1,000), target ≤ ${TARGET_RSS_MB} MB`,
  `loading 100,000 invoices into the watch set at start: ${big.loadMs.toFixed(0)} ms`,
  `gap report query at 100,000 invoices (1,000 paid): ${big.gapMs.toFixed(1)} ms`,
);
const core = results.filter((r) => r.kind === 'bitcoin-core');
report(lines, {
  bench: 'watch-block',
  value: Math.round(big.ms),
  unit: 'ms',
  baseline: Math.round(small.ms),
  ratio: round(big.ms / small.ms),
  target: TARGET_MS,
  requests_1k_esplora: small.requests,
  requests_100k_esplora: big.requests,
  ...(core.length ? { requests_1k_core: at('bitcoin-core', 1_000).requests, requests_100k_core: at('bitcoin-core', 100_000).requests, core_ms_100k: Math.round(at('bitcoin-core', 100_000).ms) } : {}),
  cpu_ms_100k: Math.round(big.cpuMs),
  cpu_ms_1k: Math.round(small.cpuMs),
  fetch_parse_ms_100k: Math.round(big.fetchParseMs),
  watcher_rss_mb: big.rssMb,
  watcher_peak_rss_mb: big.maxRssMb,
  watcher_bare_rss_mb: big.rssIdleMb,
  watcher_heap_loaded_mb: big.heapLoadedMb,
  rss_target_mb: TARGET_RSS_MB,
  gap_query_ms_100k: round(big.gapMs, 1),
});
