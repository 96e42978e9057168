// The first sync of a Bitcoin header chain (core/btc/verified-headers.ts) from a checkpoint against
// two public-style Esplora sources (bench/support/mainnet-simulator.ts: 10 requests/s, bursts of 20,
// 429 with Retry-After beyond), as a fresh install makes it: the checkpoint's interval, then pages
// spread over both sources, each source's budget sprinting, one pass every poll interval (10 s, the
// watcher's default). The headers follow regtest's rules from a checkpoint at height 2015, the same
// shape as mainnet from the shipped one. Baseline, measured in the same run: one source at the
// usual budget without the sprint (how a sync went before), over 600 headers from the genesis
// block (the same pages, fewer of them: 1 request a second is slow). Projected to the shipped checkpoint's
// header count (its interval and every block since it was taken, 144 a day).
// Run: npm run bench -- header-sync   (BENCH_HEADERS: headers to sync, default 4000)
import { defaultChains } from '../core/chains/default-chains.ts';
import { systemClock } from '../core/clock.ts';
import { silentLogger } from '../core/log.ts';
import { createSourceBudgets } from '../core/net/source-budgets.ts';
import { checkpoints } from '../core/btc/checkpoints.ts';
import { createEsploraSource } from '../core/btc/esplora-source.ts';
import { GENESIS_CHECKPOINT, headerRules, RETARGET_INTERVAL } from '../core/btc/header-chain.ts';
import { createVerifiedHeaders } from '../core/btc/verified-headers.ts';
import { openCoreDatabase } from '../core/schema.ts';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { tempSqliteUrl } from '../test/helpers/listener.ts';
import { progress, report, round } from './support/report.ts';
import { startMainnetSimulator, type MainnetSimulator } from './support/mainnet-simulator.ts';

const HEADERS = Number(process.env.BENCH_HEADERS ?? 4_000);
const BASELINE_HEADERS = 600;
const POLL_INTERVAL_MS = 10_000;
const TARGET_S = 600;
const DAY_MS = 86_400_000;

const shipped = checkpoints.mainnet;
const shippedHeaders = RETARGET_INTERVAL + Math.round(((Date.now() - Date.parse(shipped.takenAt!)) / DAY_MS) * 144);

interface Run {
  seconds: number;
  passes: number;
  requests: number;
  rateLimited: number;
  insideRetryAfter: number;
}

/**
 * Syncs a fresh chain of `count` headers over `sources` simulators: from the checkpoint at 2015
 * when `fromCheckpoint` (else from the genesis block); `sprint`: the budgets sprint.
 */
async function firstSync(label: string, count: number, options: { sources: number; sprint: boolean; fromCheckpoint: boolean }): Promise<Run> {
  const { sources, sprint, fromCheckpoint } = options;
  progress(`${label}: mining ${count.toLocaleString('en')} regtest blocks…`);
  // Block times one second apart ending before now: none is over the 2 h a header may be ahead of the clock.
  const firstTime = Date.now() - (count + 3_600) * 1000;
  const chain = new LocalBtcChain({ now: () => firstTime });
  chain.mine(count - chain.tip.height - 1);
  const simulators: MainnetSimulator[] = [];
  for (let i = 0; i < sources; i++) simulators.push(await startMainnetSimulator(chain));
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  const budgets = createSourceBudgets({ settings: {} });
  try {
    const headers = createVerifiedHeaders({
      network: 'regtest',
      rules: headerRules.regtest,
      checkpoint: fromCheckpoint ? { height: RETARGET_INTERVAL - 1, hash: chain.blockAt(RETARGET_INTERVAL - 1)!.hash } : GENESIS_CHECKPOINT,
      sources: simulators.map((s, i) => ({
        label: `simulator ${i + 1}`,
        headers: createEsploraSource({ baseUrl: s.esploraUrl, fetch: budgets.fetchFor(fetch, 'btc', s.esploraUrl) }),
        ...(sprint && { sprint: budgets.sprintFor('btc', s.esploraUrl) }),
      })),
      db: database.db,
      clock: systemClock,
      logger: silentLogger,
    });
    const started = Date.now();
    let passes = 0;
    for (;;) {
      passes++;
      const synced = await headers.sync().catch(() => false);
      const { height } = headers.status();
      progress(`${label}: pass ${passes} ended at ${((Date.now() - started) / 1000).toFixed(0)} s, height ${height ?? 'none yet'} of ${chain.tip.height}`);
      if (synced) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
    const seconds = (Date.now() - started) / 1000;
    const stats = simulators.map((s) => s.stats());
    const sum = (pick: (s: (typeof stats)[number]) => number) => stats.reduce((total, s) => total + pick(s), 0);
    return { seconds, passes, requests: sum((s) => s.requests), rateLimited: sum((s) => s.tooManyRequests), insideRetryAfter: sum((s) => s.insideRetryAfter) };
  } finally {
    await database.close();
    for (const s of simulators) await s.close();
  }
}

const projected = (run: Run, count: number) => (run.seconds * shippedHeaders) / count;

const baseline = await firstSync('baseline (one source, usual budget)', BASELINE_HEADERS, { sources: 1, sprint: false, fromCheckpoint: false });
const measured = await firstSync('two sources, sprinting', HEADERS, { sources: 2, sprint: true, fromCheckpoint: true });
const value = projected(measured, HEADERS);
const baselineValue = projected(baseline, BASELINE_HEADERS);

report(
  [
    `two public-style sources (10 req/s, bursts of 20, 429 + Retry-After beyond), ${HEADERS.toLocaleString('en')} headers from a checkpoint:`,
    `  ${round(measured.seconds, 1)} s over ${measured.passes} passes (one every ${POLL_INTERVAL_MS / 1000} s): ${round(HEADERS / measured.seconds, 1)} headers/s`,
    `  requests: ${measured.requests}; 429s: ${measured.rateLimited}; requests inside a Retry-After window: ${measured.insideRetryAfter}`,
    `  projected for the shipped checkpoint (${shippedHeaders.toLocaleString('en')} headers, taken ${shipped.takenAt}): ${round(value, 0)} s`,
    `baseline, one source at the usual budget (1 req/s, bursts of 10), no sprint: ${round(BASELINE_HEADERS / baseline.seconds, 1)} headers/s, projected ${round(baselineValue, 0)} s`,
    `target: the shipped checkpoint in <= ${TARGET_S} s with no request inside a Retry-After window: ${value <= TARGET_S && measured.insideRetryAfter === 0 ? 'met' : 'NOT met'}`,
  ],
  {
    bench: 'header-sync',
    value: round(value, 0),
    unit: 's',
    baseline: round(baselineValue, 0),
    ratio: round(value / baselineValue, 3),
    target: TARGET_S,
    headers: HEADERS,
    shipped_headers: shippedHeaders,
    headers_per_s: round(HEADERS / measured.seconds, 1),
    passes: measured.passes,
    requests: measured.requests,
    rate_limited: measured.rateLimited,
    inside_retry_after: measured.insideRetryAfter,
    met: value <= TARGET_S && measured.insideRetryAfter === 0,
  },
);
