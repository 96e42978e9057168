import { defaultChains } from '../core/chains/default-chains.ts';
/**
 * Cloud chain watching at 1,000, 10,000 and 100,000 merchants on one instance: a real Cloud process (`service start
 * --cloud`, compiled, default poll intervals) watching the local regtest chain through its Esplora
 * API in full mode, on SQLite and on Postgres (a private schema). Each merchant has two open
 * Bitcoin invoices, written in bulk before the process starts (signing 10,000 merchants up over
 * HTTP would take longer than the measurement); the watchers are Cloud's own.
 *
 * Per database and size: the process's RSS once its watcher has indexed every invoice and read the
 * tip; its CPU over 30 s of idle; then one block paying 1,000 invoices of 1,000 different merchants,
 * timed from the watcher's download of the block to the 1,000th invoice confirmed in the database.
 * Then a restart: the process is stopped and started again on the same database, timed until its
 * API answers and until its watcher's first pass (every invoice indexed, every wallet key's gap
 * report) is done.
 * Baseline: the same with 1,000 merchants in the same run.
 * Run: npm run bench -- cloud-watch   (BENCH_IDLE_S=… shortens the idle window; BENCH_MERCHANTS=1000,10000 picks the sizes)
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { openCloudDatabase } from '../cloud/storage/cloud.schema.ts';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../sandbox/local-chain-server.ts';
import { progress, report, round } from './support/report.ts';
import { cpuPctOver, freshDatabase, peakRssMb, rssMb, startCloudProcess, stopProcess, waitFor, waitQuiet } from './support/cloud-process.ts';

const SIZES = (process.env.BENCH_MERCHANTS ?? '1000,10000,100000').split(',').map(Number);
const BASELINE_MERCHANTS = SIZES[0];
const MERCHANTS = SIZES[SIZES.length - 1];
const INVOICES_PER_MERCHANT = 2;
const PAID = 1_000;
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const TARGETS = { rss_mb: 500, idle_cpu_pct: 2, block_settle_ms: 1_000, restart_s: 30 };
const root = fileURLToPath(new URL('..', import.meta.url));
/** A test-network key stored on every merchant, as signup would; the watchers read the invoices, not the keys. */
const TPUB = BIP32Factory(ecc).fromSeed(Buffer.alloc(32, 7), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered().toBase58();

progress('building the Cloud (dist/)…');
spawnSync(process.execPath, ['bin/build.js'], { cwd: root, stdio: 'inherit' });
const chain = new LocalBtcChain();
const server = await startLocalChainServer(chain);
const randomAddress = () => bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!;

interface Prepared {
  url: string;
  database: Awaited<ReturnType<typeof openCloudDatabase>>;
  /** The first invoice's address of each of the first PAID merchants, and its invoice id. */
  paid: Array<{ invoiceId: string; address: string }>;
  cleanup(): Promise<void>;
}

async function prepare(kind: 'sqlite' | 'postgres', merchants: number): Promise<Prepared> {
  const { url, cleanup } = await freshDatabase(kind, 'bench-cloud-watch');
  const database = await openCloudDatabase(url, defaultChains);
  const now = Date.now();
  const paid: Prepared['paid'] = [];
  for (let start = 0; start < merchants; start += 500) {
    const ids = Array.from({ length: Math.min(500, merchants - start) }, (_, j) => start + j);
    await database.db
      .insertInto('cloud_merchants')
      .values(
        ids.map((i) => ({
          merchant_id: `m_${i}`,
          email: `bench${i}@example.com`,
          shop_name: `Bench ${i}`,
          btc_xpub: TPUB,
          base_xpub: null,
          base_address: null,
          webhook_url: null,
          webhook_secret: null,
          plan: 'free',
          plan_expires_at: null,
          created_at: now - 7_200_000,
        })),
      )
      .execute();
    const invoices = ids.flatMap((i) =>
      Array.from({ length: INVOICES_PER_MERCHANT }, (_, n) => {
        // Spread over the last hour, one every 180 ms at 10,000 merchants: the watch-set refresh re-reads the last two minutes.
        const createdAt = Math.round(now - 3_600_000 + ((i * INVOICES_PER_MERCHANT + n) * 3_600_000) / (merchants * INVOICES_PER_MERCHANT));
        const address = randomAddress();
        if (n === 0 && i < PAID) paid.push({ invoiceId: `inv_${i}_${n}`, address });
        return {
          invoice_id: `inv_${i}_${n}`,
          merchant_id: `m_${i}`,
          chain: 'btc',
          asset: 'BTC',
          network: 'regtest',
          receive_address: address,
          child_index: n,
          derivation_path: null,
          key_id: `key_${i}`,
          amount_sats: 10_000,
          amount_units: null,
          memo: null,
          status: 'pending',
          tx_hash: null,
          paid_at: null,
          expires_at: now + 86_400_000,
          created_at: createdAt,
          updated_at: createdAt,
        };
      }),
    );
    await database.db.insertInto('invoices').values(invoices).execute();
  }
  return { url, database, paid, cleanup };
}

interface Measured {
  merchants: number;
  pickupS: number;
  /** Restart on the same database: until the API answers, and until the watcher's first pass ended. */
  restartServeS: number;
  restartPassS: number;
  /** Highest RSS up to the end of the block (the start included). */
  peakRssMb: number;
  rssMb: number;
  idleCpuPct: number;
  settleMs: number;
  fromMineMs: number;
}

async function measure(kind: 'sqlite' | 'postgres', merchants: number): Promise<Measured> {
  const label = `[${kind}, ${merchants.toLocaleString('en')} merchants]`;
  progress(`${label} writing ${merchants.toLocaleString('en')} merchants and ${(merchants * INVOICES_PER_MERCHANT).toLocaleString('en')} invoices…`);
  const prepared = await prepare(kind, merchants);
  const { database } = prepared;
  let child: ChildProcess | undefined;
  try {
    progress(`${label} starting the Cloud process…`);
    const started = performance.now();
    ({ child } = await startCloudProcess(prepared.url, server.esploraUrl));
    const pid = child.pid!;
    const tip = chain.tip.height;
    await waitFor(
      'the watcher indexed every invoice and read the tip',
      async () => Boolean(await database.db.selectFrom('btc_blocks').select('height').where('merchant_id', 'like', 'watch:btc:%').where('height', '>=', tip).executeTakeFirst()),
      300_000,
      100,
    );
    const pickupS = (performance.now() - started) / 1000;
    // The first pass ends with every wallet key's gap report; idle is after it.
    await waitQuiet('the first pass ended', pid);
    const rss = rssMb(pid);
    progress(`${label} picked up in ${pickupS.toFixed(1)} s; RSS ${rss.toFixed(0)} MB; measuring idle CPU over ${IDLE_S} s…`);
    const idleCpuPct = await cpuPctOver(pid, IDLE_S);

    progress(`${label} one block paying ${PAID} invoices of ${PAID} merchants…`);
    const blockFetches = () => server.requestsByRoute().get('GET /api/block/:hash/raw') ?? 0;
    const fetchesBefore = blockFetches();
    for (let i = 0; i < prepared.paid.length; i += 2) chain.pay(prepared.paid.slice(i, i + 2).map((p) => ({ address: p.address, value: 10_000n })));
    chain.mine(1);
    const minedAt = performance.now();
    await waitFor('the watcher downloaded the block', () => blockFetches() > fetchesBefore, 30_000, 1);
    const fetchedAt = performance.now();
    const ids = prepared.paid.map((p) => p.invoiceId);
    await waitFor(
      `the ${PAID} invoices confirmed`,
      async () => {
        const row = await database.db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'confirmed').where('invoice_id', 'in', ids).executeTakeFirstOrThrow();
        return Number(row.n) === PAID;
      },
      60_000,
      10,
    );
    const doneAt = performance.now();
    const peak = peakRssMb(pid);
    const settleMs = doneAt - fetchedAt;
    progress(`${label} settled in ${settleMs.toFixed(0)} ms after the block download (${(doneAt - minedAt).toFixed(0)} ms after mining, the poll wait included)`);

    progress(`${label} restarting…`);
    await stopProcess(child);
    const restarted = performance.now();
    ({ child } = await startCloudProcess(prepared.url, server.esploraUrl));
    const restartServeS = (performance.now() - restarted) / 1000;
    await waitQuiet('the first pass after the restart ended', child.pid!, 0.5);
    // The quiet half second that ended the wait is not part of the pass.
    const restartPassS = (performance.now() - restarted) / 1000 - 0.5;
    progress(`${label} restarted: API answering after ${restartServeS.toFixed(1)} s, first watcher pass done after ${restartPassS.toFixed(1)} s`);
    return { merchants, pickupS, restartServeS, restartPassS, peakRssMb: peak, rssMb: rss, idleCpuPct, settleMs, fromMineMs: doneAt - minedAt };
  } finally {
    if (child) await stopProcess(child);
    await database.close();
    await prepared.cleanup();
  }
}

const measured: Record<'sqlite' | 'postgres', Measured[]> = { sqlite: [], postgres: [] };
for (const kind of ['sqlite', 'postgres'] as const) {
  for (const merchants of SIZES) measured[kind].push(await measure(kind, merchants));
}
const results = {
  sqlite: { base: measured.sqlite[0], big: measured.sqlite[measured.sqlite.length - 1] },
  postgres: { base: measured.postgres[0], big: measured.postgres[measured.postgres.length - 1] },
};
await server.close();

const row = (kind: string, m: Measured) =>
  `${kind.padEnd(10)}${m.merchants.toLocaleString('en').padStart(10)}${(m.merchants * INVOICES_PER_MERCHANT).toLocaleString('en').padStart(10)}` +
  `${m.pickupS.toFixed(1).padStart(15)}${m.rssMb.toFixed(0).padStart(10)}${m.peakRssMb.toFixed(0).padStart(11)}${m.idleCpuPct.toFixed(2).padStart(14)}${m.settleMs.toFixed(0).padStart(19)}` +
  `${m.restartServeS.toFixed(1).padStart(18)}${m.restartPassS.toFixed(1).padStart(17)}`;
const worst = <K extends keyof Measured>(key: K) => Math.max(results.sqlite.big[key] as number, results.postgres.big[key] as number);
const worstBase = <K extends keyof Measured>(key: K) => Math.max(results.sqlite.base[key] as number, results.postgres.base[key] as number);
const lines = [
  '',
  `cloud-watch: one Cloud instance, ${INVOICES_PER_MERCHANT} open Bitcoin invoices per merchant, local regtest chain (Esplora, full mode), default poll intervals`,
  'database   merchants  invoices  picked up (s)  RSS (MB)  peak (MB)  idle CPU (%)  block settle (ms)  restart: API (s)  first pass (s)',
  ...(['sqlite', 'postgres'] as const).flatMap((kind) => measured[kind].map((m) => row(kind, m))),
  '',
  `block settle: from the watcher's download of a block paying ${PAID} invoices of ${PAID} merchants to the last of them confirmed in the database`,
  `idle CPU: share of one core over ${IDLE_S} s with nothing happening on the chain; RSS once every invoice is indexed`,
  `${MERCHANTS.toLocaleString('en')} vs ${BASELINE_MERCHANTS.toLocaleString('en')} merchants (worst database): RSS ${round(worst('rssMb') / worstBase('rssMb'))}x, ` +
    `idle CPU ${worst('idleCpuPct').toFixed(2)} % vs ${worstBase('idleCpuPct').toFixed(2)} %; ` +
    `targets: RSS <= ${TARGETS.rss_mb} MB, idle <= ${TARGETS.idle_cpu_pct} %, block <= ${TARGETS.block_settle_ms} ms, restart <= ${TARGETS.restart_s} s`,
];
const per = (kind: 'sqlite' | 'postgres') => ({
  [`${kind}_rss_mb`]: Math.round(results[kind].big.rssMb),
  [`${kind}_peak_rss_mb`]: Math.round(results[kind].big.peakRssMb),
  [`${kind}_idle_cpu_pct`]: round(results[kind].big.idleCpuPct),
  [`${kind}_block_settle_ms`]: Math.round(results[kind].big.settleMs),
  [`${kind}_rss_mb_1000`]: Math.round(results[kind].base.rssMb),
  [`${kind}_idle_cpu_pct_1000`]: round(results[kind].base.idleCpuPct),
  [`${kind}_block_settle_ms_1000`]: Math.round(results[kind].base.settleMs),
  [`${kind}_pickup_s`]: round(results[kind].big.pickupS, 1),
  [`${kind}_restart_serve_s`]: round(results[kind].big.restartServeS, 1),
  [`${kind}_restart_pass_s`]: round(results[kind].big.restartPassS, 1),
});
report(lines, {
  bench: 'cloud-watch',
  value: Math.round(worst('rssMb')),
  unit: 'MB',
  baseline: Math.round(worstBase('rssMb')),
  ratio: round(worst('rssMb') / worstBase('rssMb')),
  target: TARGETS,
  merchants: MERCHANTS,
  rss_mb: Math.round(worst('rssMb')),
  idle_cpu_pct: round(worst('idleCpuPct')),
  block_settle_ms: Math.round(worst('settleMs')),
  restart_serve_s: round(worst('restartServeS'), 1),
  restart_pass_s: round(worst('restartPassS'), 1),
  load_average: loadavg().map((l) => round(l, 2)),
  rss_mb_1000: Math.round(worstBase('rssMb')),
  ...per('sqlite'),
  ...per('postgres'),
});
