/**
 * Cloud at the scale of a platform: merchants signed up over HTTP against one real Cloud process
 * (the compiled `service start --cloud`, default poll intervals, watching the local regtest chain
 * through its Esplora API), each creating two Bitcoin invoices through `POST /api/v1/invoice` with
 * its own API key; on SQLite and on Postgres (a private schema). Two cases of account keys: every
 * merchant its own (`own`), and every merchant the same one (`shared`, the gap report's worst case).
 *
 * Per database, case and size: the process's peak RSS during the sign-ups and invoice creations,
 * its RSS once settled (after the idle window), its CPU over the idle window (nothing happening on
 * the chain or the API; it starts once the watcher has read the chain to its tip, a one-off at the
 * first invoices, and two minutes after the last invoice, while the watcher still reads the recent
 * ones again, and once the process used under a tenth of a core for a second), then one block
 * paying 1,000 invoices of 1,000 merchants, timed from the watcher's storing of the block until
 * every `invoice.confirmed` is queued (in the events table), then a restart on the same database, timed until the API answers and until the first watcher
 * pass is done. Then the settle pass again from the bench process (state reset, the Cloud stopped)
 * with every statement timed, and on Postgres `EXPLAIN (ANALYZE, BUFFERS)` of the costliest.
 * Baseline: the first size (1,000 merchants) of the same run, same process tree.
 *
 * Run: npm run bench -- cloud-scale
 *   BENCH_MERCHANTS=1000,100000 sizes (the first is the baseline); BENCH_DATABASES=sqlite,postgres;
 *   BENCH_KEYS=own,shared; BENCH_IDLE_S=30; BENCH_CONCURRENCY=16 requests in flight;
 *   BENCH_IDLE_PROFILE=1 profiles a second idle window as long (after the measured one, whose
 *   figure the profiler would raise) and prints its top entries.
 * Sign-ups and creations run at a few hundred a second on 2 cores: 100,000 merchants take about
 * 20 minutes per database and case (docs/benchmarks.md has the measured times).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import bs58check from 'bs58check';
import * as ecc from 'tiny-secp256k1';
import { defaultChains } from '../core/chains/default-chains.ts';
import { openCloudDatabase } from '../cloud/storage/cloud.schema.ts';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../sandbox/local-chain-server.ts';
import { payeeOf } from '../test/helpers/btc-chain.ts';
import { summarizeProfile, type ProfileEntry } from './support/cpu-profile.ts';
import { profileSettlePass, type SettleProfile } from './support/settle-profile.ts';
import { profileWindow } from './support/window-profile.ts';
import { progress, progressOf, report, round } from './support/report.ts';
import { cpuPctOver, cpuS, freshDatabase, peakRssMb, rssMb, startCloudProcess, stopProcess, waitFor, waitQuiet, type DatabaseKind } from './support/cloud-process.ts';

const SIZES = (process.env.BENCH_MERCHANTS ?? '1000,100000').split(',').map(Number);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',') as DatabaseKind[];
const KEY_CASES = (process.env.BENCH_KEYS ?? 'own,shared').split(',') as KeyCase[];
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const IDLE_PROFILE = process.env.BENCH_IDLE_PROFILE === '1';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const INVOICES_PER_MERCHANT = 2;
const PAID = 1_000;
/**
 * The Bitcoin watcher reads again, at every pass, the invoices created in the two minutes before
 * the newest it has seen (one may commit after a later one was read): work that goes on for two
 * minutes after the last invoice, part of an invoice's cost, not of idling.
 */
const REREAD_WINDOW_S = 130;
const TARGETS = { peak_rss_mb: 500, idle_cpu_pct: 2, block_settle_ms: 1_000, restart_s: 30 };
const root = fileURLToPath(new URL('..', import.meta.url));

type KeyCase = 'own' | 'shared';

/**
 * Merchant `i`'s account key in case `run` (a test-network tpub at depth 3, as signup wants): one
 * public key with a chain code of its own, so each derives its own addresses and has its own key
 * id. Built directly, since 100,000 hardened derivations would take longer than the sign-ups. Each
 * case has keys of its own: the cases share one chain, and a case's invoices at addresses an
 * earlier case already paid would be confirmed before its block.
 */
const accountNode = BIP32Factory(ecc).fromSeed(Buffer.alloc(32, 7), bitcoin.networks.testnet).derivePath("m/84'/1'/0'");
function accountKey(run: string, i: number): string {
  const payload = Buffer.alloc(78);
  payload.writeUInt32BE(bitcoin.networks.testnet.bip32.public, 0);
  payload.writeUInt8(3, 4);
  payload.writeUInt32BE(accountNode.parentFingerprint, 5);
  payload.writeUInt32BE((0x80000000 + i) >>> 0, 9);
  createHash('sha256').update(`bench chain code ${run} ${i}`).digest().copy(payload, 13);
  Buffer.from(accountNode.publicKey).copy(payload, 45);
  return bs58check.encode(payload);
}

progress('building the Cloud (dist/)…');
spawnSync(process.execPath, ['bin/build.js'], { cwd: root, stdio: 'inherit' });
const chain = new LocalBtcChain();
const server = await startLocalChainServer(chain);

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** `count` jobs, CONCURRENCY in flight, with progress now and then. */
async function inParallel(label: string, count: number, job: (i: number) => Promise<void>) {
  const started = performance.now();
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        await job(next++);
        if (++done % 10_000 === 0) progressOf(label, done, count, started);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

interface Loaded {
  signupS: number;
  createS: number;
  /** CPU seconds of the Cloud process per sign-up and per invoice created, in ms. */
  signupCpuMs: number;
  createCpuMs: number;
  peakRssMb: number;
  /** The first invoice of every (merchants/PAID)-th merchant. */
  paid: Array<{ merchantId: string; invoiceId: string; address: string }>;
}

/** Signs `merchants` up over HTTP, then creates their invoices, `INVOICES_PER_MERCHANT` each, with their own keys. */
async function signUpAndCreate(baseUrl: string, pid: number, merchants: number, keys: KeyCase): Promise<Loaded> {
  const run = randomBytes(8).toString('hex');
  const apiKeys: string[] = new Array(merchants);
  const merchantIds: string[] = new Array(merchants);
  const cpuAtStart = cpuS(pid);
  const signupS = await inParallel('sign-ups', merchants, async (i) => {
    const body = { email: `bench${i}@example.com`, shop_name: `Bench ${i}`, btc_xpub: accountKey(run, keys === 'own' ? i : 0) };
    const answer = await postJson(`${baseUrl}/api/v1/signup`, body);
    apiKeys[i] = answer.api_key as string;
    merchantIds[i] = answer.merchant_id as string;
  });
  const cpuAfterSignups = cpuS(pid);
  const every = Math.max(1, Math.floor(merchants / PAID));
  const paid: Loaded['paid'] = [];
  const createS = await inParallel('invoices', merchants * INVOICES_PER_MERCHANT, async (n) => {
    const i = n % merchants;
    const invoice = await postJson(`${baseUrl}/api/v1/invoice`, { amount_sats: 10_000 }, { 'x-service-api-key': apiKeys[i] });
    if (n < merchants && i % every === 0 && paid.length < PAID) paid.push({ merchantId: merchantIds[i], invoiceId: invoice.invoice_id as string, address: invoice.receive_address as string });
  });
  const invoices = merchants * INVOICES_PER_MERCHANT;
  return {
    signupS,
    createS,
    signupCpuMs: ((cpuAfterSignups - cpuAtStart) / merchants) * 1000,
    createCpuMs: ((cpuS(pid) - cpuAfterSignups) / invoices) * 1000,
    peakRssMb: peakRssMb(pid),
    paid,
  };
}

interface Measured {
  kind: DatabaseKind;
  keys: KeyCase;
  merchants: number;
  signupS: number;
  createS: number;
  signupCpuMs: number;
  createCpuMs: number;
  peakRssMb: number;
  rssMb: number;
  idleCpuPct: number;
  settleMs: number;
  fromMineMs: number;
  restartServeS: number;
  restartPassS: number;
  profile: SettleProfile;
  idleProfile: { functions: ProfileEntry[]; idlePct: number } | null;
}

type Database = Awaited<ReturnType<typeof openCloudDatabase>>;

const confirmedQueued = async (database: Database, merchantIds: string[]) => {
  const row = await database.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', 'invoice.confirmed')
    .where('merchant_id', 'in', merchantIds)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

/**
 * Seconds until the Bitcoin watcher has read the chain to its tip: it starts once there is an
 * invoice to watch (looked for every 30 s), then reads every block since the oldest open invoice
 * could have been paid. That first pass is a one-off, so the idle window starts after it.
 */
async function watcherCaughtUp(database: Database): Promise<number> {
  const started = performance.now();
  const tip = chain.tip.height;
  await waitFor(
    `the Bitcoin watcher stored block ${tip}, the chain's tip`,
    async () => !!(await database.db.selectFrom('btc_blocks').select('height').where('merchant_id', 'like', 'watch:btc:%').where('height', '>=', tip).executeTakeFirst()),
    120_000,
    200,
  );
  return (performance.now() - started) / 1000;
}

/**
 * One block paying every `paid` invoice; ms from the watcher's storing the block (its row in
 * btc_blocks, written with the block's payments) until every invoice.confirmed is queued, as the
 * watcher's own confirmed-after-block metric counts, and from mining (the watcher noticing the
 * block, its download and parsing included).
 */
async function payOneBlock(database: Database, paid: Loaded['paid']) {
  for (let i = 0; i < paid.length; i += 2) chain.pay(paid.slice(i, i + 2).map((p) => ({ ...payeeOf(p.address), value: 10_000n })));
  chain.mine(1);
  const minedAt = performance.now();
  const height = chain.tip.height;
  const merchantIds = paid.map((p) => p.merchantId);
  let storedAt: number | null = null;
  await waitFor(
    `every invoice.confirmed of the ${paid.length} queued`,
    async () => {
      if (storedAt === null) {
        const stored = await database.db.selectFrom('btc_blocks').select('height').where('merchant_id', 'like', 'watch:btc:%').where('height', '>=', height).executeTakeFirst();
        if (stored) storedAt = performance.now();
      }
      return (await confirmedQueued(database, merchantIds)) === paid.length;
    },
    120_000,
    10,
  );
  const doneAt = performance.now();
  return { settleMs: doneAt - (storedAt ?? doneAt), fromMineMs: doneAt - minedAt };
}

async function measure(kind: DatabaseKind, keys: KeyCase, merchants: number): Promise<Measured> {
  const label = `[${kind}, ${keys} keys, ${merchants.toLocaleString('en')} merchants]`;
  const { url, cleanup } = await freshDatabase(kind, 'bench-cloud-scale');
  let child: ChildProcess | undefined;
  let database: Database | undefined;
  try {
    progress(`${label} starting the Cloud process…`);
    const started = await startCloudProcess(url, server.esploraUrl);
    child = started.child;
    const pid = child.pid!;
    database = await openCloudDatabase(url, defaultChains);
    progress(`${label} signing up ${merchants.toLocaleString('en')} merchants over HTTP, then ${INVOICES_PER_MERCHANT} invoices each…`);
    const loaded = await signUpAndCreate(`http://127.0.0.1:${started.port}`, pid, merchants, keys);
    progress(`${label} sign-ups ${loaded.signupS.toFixed(0)} s (${loaded.signupCpuMs.toFixed(1)} ms CPU each), invoices ${loaded.createS.toFixed(0)} s (${loaded.createCpuMs.toFixed(1)} ms CPU each); peak RSS ${loaded.peakRssMb.toFixed(0)} MB; waiting for the watcher's first pass and quiet…`);
    const createdAt = performance.now();
    const watchingS = await watcherCaughtUp(database);
    progress(`${label} the watcher caught up ${watchingS.toFixed(0)} s after the last invoice; waiting out its re-read window…`);
    const rereadLeftMs = REREAD_WINDOW_S * 1000 - (performance.now() - createdAt);
    if (rereadLeftMs > 0) await new Promise((resolve) => setTimeout(resolve, rereadLeftMs));
    await waitQuiet('the work of the sign-ups and the first watcher pass ended', pid);
    progress(`${label} measuring idle CPU over ${IDLE_S} s…`);
    const idleCpuPct = await cpuPctOver(pid, IDLE_S);
    const rss = rssMb(pid);
    const idleProfile = IDLE_PROFILE ? summarizeProfile((await profileWindow(pid, () => new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000)))).profile, 10) : null;

    progress(`${label} RSS ${rss.toFixed(0)} MB, idle ${idleCpuPct.toFixed(2)} %; one block paying ${loaded.paid.length} invoices of as many merchants…`);
    const { settleMs, fromMineMs } = await payOneBlock(database, loaded.paid);
    progress(`${label} settled in ${settleMs.toFixed(0)} ms after the watcher stored the block (${fromMineMs.toFixed(0)} ms after mining, the poll wait included)`);

    progress(`${label} restarting…`);
    await stopProcess(child);
    const restarted = performance.now();
    child = (await startCloudProcess(url, server.esploraUrl)).child;
    const restartServeS = (performance.now() - restarted) / 1000;
    await waitQuiet('the first pass after the restart ended', child.pid!, 0.5);
    // The quiet half second that ended the wait is not part of the pass.
    const restartPassS = (performance.now() - restarted) / 1000 - 0.5;
    progress(`${label} restarted: API answering after ${restartServeS.toFixed(1)} s, first watcher pass done after ${restartPassS.toFixed(1)} s`);
    await stopProcess(child);

    progress(`${label} the settle pass again, every statement timed…`);
    const profile = await profileSettlePass(url, loaded.paid);
    return { kind, keys, merchants, signupS: loaded.signupS, createS: loaded.createS, signupCpuMs: loaded.signupCpuMs, createCpuMs: loaded.createCpuMs, peakRssMb: loaded.peakRssMb, rssMb: rss, idleCpuPct, settleMs, fromMineMs, restartServeS, restartPassS, profile, idleProfile };
  } finally {
    if (child) await stopProcess(child);
    await database?.close();
    await cleanup();
  }
}

const measured: Measured[] = [];
for (const kind of DATABASES) {
  for (const keys of KEY_CASES) {
    for (const merchants of SIZES) measured.push(await measure(kind, keys, merchants));
  }
}
await server.close();

const row = (m: Measured) =>
  `${m.kind.padEnd(9)}${m.keys.padEnd(7)}${m.merchants.toLocaleString('en').padStart(9)}${`${m.signupS.toFixed(0)} / ${m.signupCpuMs.toFixed(1)}`.padStart(18)}${`${m.createS.toFixed(0)} / ${m.createCpuMs.toFixed(1)}`.padStart(19)}` +
  `${m.peakRssMb.toFixed(0).padStart(11)}${m.rssMb.toFixed(0).padStart(14)}${m.idleCpuPct.toFixed(2).padStart(10)}${m.settleMs.toFixed(0).padStart(13)}` +
  `${m.fromMineMs.toFixed(0).padStart(17)}${m.profile.passMs.toFixed(0).padStart(12)}${m.restartServeS.toFixed(1).padStart(13)}${m.restartPassS.toFixed(1).padStart(14)}`;
const profileLines = (m: Measured) => [
  `${m.kind}, ${m.keys} keys, ${m.merchants.toLocaleString('en')} merchants: settle pass ${m.profile.passMs.toFixed(0)} ms, ${m.profile.statements} statements, ${m.profile.statementMs.toFixed(0)} ms in them; costliest:`,
  ...m.profile.top.map((s) => `  ${s.totalMs.toFixed(1).padStart(8)} ms ${String(s.count).padStart(5)}x  ${s.sql.slice(0, 150)}`),
  ...m.profile.plans.map((plan) => `  EXPLAIN ANALYZE ${plan.sql.slice(0, 100)}\n${plan.plan.map((line) => `    ${line}`).join('\n')}`),
  ...(m.idleProfile
    ? [`  idle window profiled (main thread, ${IDLE_S} s): ${m.idleProfile.idlePct} % idle; top self time:`, ...m.idleProfile.functions.map((f) => `  ${f.selfPct.toFixed(1).padStart(8)} %  ${f.name}`)]
    : []),
];
const biggest = measured.filter((m) => m.merchants === SIZES[SIZES.length - 1]);
const baseOf = (m: Measured) => measured.find((b) => b.kind === m.kind && b.keys === m.keys && b.merchants === SIZES[0])!;
const worst = (key: 'peakRssMb' | 'rssMb' | 'idleCpuPct' | 'settleMs' | 'restartServeS', of = biggest) => Math.max(...of.map((m) => m[key]));
const baselines = biggest.map(baseOf);
const lines = [
  '',
  `cloud-scale: one Cloud instance, merchants signed up over HTTP (${CONCURRENCY} in flight), ${INVOICES_PER_MERCHANT} Bitcoin invoices each created over HTTP, local regtest chain (Esplora, full mode), default poll intervals`,
  'database keys   merchants  sign-up (s / CPU ms)  invoices (s / CPU ms)  peak (MB)  settled (MB)  idle (%)  settle (ms)  from mined (ms)  pass* (ms)  restart: API (s)  pass (s)',
  ...measured.map(row),
  '',
  `settle: from the watcher's storing of a block paying ${PAID} invoices of ${PAID} merchants until every invoice.confirmed is queued; pass*: the settle pass alone, re-run from the bench`,
  `idle: share of one core over ${IDLE_S} s with nothing happening; peak: highest RSS up to the end of the sign-ups and creations; settled: after the idle window`,
  `worst at ${SIZES[SIZES.length - 1].toLocaleString('en')} vs ${SIZES[0].toLocaleString('en')}: peak RSS ${worst('peakRssMb').toFixed(0)} vs ${worst('peakRssMb', baselines).toFixed(0)} MB, ` +
    `idle ${worst('idleCpuPct').toFixed(2)} vs ${worst('idleCpuPct', baselines).toFixed(2)} %, settle ${worst('settleMs').toFixed(0)} vs ${worst('settleMs', baselines).toFixed(0)} ms; ` +
    `targets: peak RSS <= ${TARGETS.peak_rss_mb} MB, idle <= ${TARGETS.idle_cpu_pct} %, settle <= ${TARGETS.block_settle_ms} ms, restart <= ${TARGETS.restart_s} s`,
  '',
  ...measured.flatMap(profileLines),
];
const figures = Object.fromEntries(
  measured.flatMap((m) => {
    const at = `${m.kind}_${m.keys}_${m.merchants}`;
    return [
      [`${at}_peak_rss_mb`, Math.round(m.peakRssMb)],
      [`${at}_rss_mb`, Math.round(m.rssMb)],
      [`${at}_idle_cpu_pct`, round(m.idleCpuPct)],
      [`${at}_block_settle_ms`, Math.round(m.settleMs)],
      [`${at}_settle_pass_ms`, Math.round(m.profile.passMs)],
      [`${at}_mined_to_queued_ms`, Math.round(m.fromMineMs)],
      [`${at}_restart_serve_s`, round(m.restartServeS, 1)],
      [`${at}_restart_pass_s`, round(m.restartPassS, 1)],
      [`${at}_signup_s`, Math.round(m.signupS)],
      [`${at}_create_s`, Math.round(m.createS)],
      [`${at}_signup_cpu_ms`, round(m.signupCpuMs)],
      [`${at}_create_cpu_ms`, round(m.createCpuMs)],
    ];
  }),
);
report(lines, {
  bench: 'cloud-scale',
  value: Math.round(worst('peakRssMb')),
  unit: 'MB',
  baseline: Math.round(worst('peakRssMb', baselines)),
  ratio: round(worst('peakRssMb') / worst('peakRssMb', baselines)),
  target: TARGETS,
  merchants: SIZES[SIZES.length - 1],
  peak_rss_mb: Math.round(worst('peakRssMb')),
  rss_mb: Math.round(worst('rssMb')),
  idle_cpu_pct: round(worst('idleCpuPct')),
  block_settle_ms: Math.round(worst('settleMs')),
  restart_serve_s: round(worst('restartServeS'), 1),
  load_average: loadavg().map((l) => round(l, 2)),
  ...figures,
});
