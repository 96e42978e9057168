/**
 * Live invoice status at scale: 1,000 MCP Streamable HTTP sessions on one listener, 10 invoice
 * subscriptions each. Measures the listener's idle CPU over 30 s with the sessions, minus the same
 * listener's idle CPU with none (target: at most 2% of a core); its RSS per 1,000 sessions; the time
 * from a confirmation's commit to each session's notifications/resources/updated (target p99 <= 250
 * ms, all notified); the same for the 2026-07-28 path, 1,000 `subscriptions/listen` streams of 10
 * invoices each (SDK 2 clients; idle CPU against the same process with neither sessions nor streams,
 * measured again just before; same targets); and the same across two Cloud instances on Postgres
 * (sessions on the one that does not watch; target p99 <= 500 ms). The cross-instance part needs Postgres: without
 * TEST_DATABASE_URL the bench fails at once, so a run never reports it missing as a figure.
 * Run: npm run bench -- mcp-live
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { testAccountKey } from '../test/helpers/btc-chain.ts';
import { signupMerchant } from '../test/helpers/cloud.ts';
import { testDatabases } from '../test/helpers/databases.ts';
import { postJson } from '../test/helpers/listener.ts';
import { allNotified, idleCpuPct, rssMb, sleep, startLiveServer } from './support/mcp-sessions.ts';
import { percentile, progress, report, round } from './support/report.ts';

const postgres = testDatabases.find((kind) => kind.name === 'postgres')!;
if (postgres.skip) {
  process.stderr.write(
    'mcp-live measures live status across two Cloud instances on Postgres: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) and run it again.\n',
  );
  process.exit(1);
}

const SESSIONS = 1_000;
const PER_SESSION = 10;
/** Invoices every session subscribes to; each is confirmed once, and every session must hear it. */
const TARGETS = 3;
const IDLE_S = 30;
const CONNECT_CONCURRENCY = 50;
/**
 * The sessions' clients run in this many processes: in one, a notification's parsing by 1,000
 * clients queued behind itself, and the figures were the bench's own backlog, not the server's.
 */
const CLIENT_PROCESSES = 4;
const TARGET_IDLE_CPU_PCT = 2;
const TARGET_P99_MS = 250;
const TARGET_CLOUD_P99_MS = 500;






/**
 * Opens the sessions, each subscribed to the targets and to others of `invoices`, spread over
 * CLIENT_PROCESSES processes (bench/support/live-clients.ts), and records each notification's
 * arrival. `close()` closes them all.
 */
async function openSessions(url: string, headers: Record<string, string>, targets: string[], others: string[], listen = false) {
  const arrivals = new Map<string, number[]>();
  for (const target of targets) arrivals.set(target, []);
  const script = fileURLToPath(new URL('./support/live-clients.ts', import.meta.url));
  const opened: number[] = [];
  const share = Math.ceil(SESSIONS / CLIENT_PROCESSES);
  const children = await Promise.all(
    Array.from({ length: CLIENT_PROCESSES }, (_, index) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      const first = index * share;
      const count = Math.min(share, SESSIONS - first);
      opened[index] = 0;
      child.stdin!.write(`${JSON.stringify({ url, headers, first, count, perSession: PER_SESSION, concurrency: Math.ceil(CONNECT_CONCURRENCY / CLIENT_PROCESSES), targets, others, listen })}\n`);
      return new Promise<ChildProcess>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`live-clients exited (${code}) before its sessions were open`)));
        createInterface({ input: child.stdout! }).on('line', (line) => {
          const message = JSON.parse(line) as { arrival?: string; at?: number; opened?: number; ready?: boolean };
          if (message.arrival !== undefined) arrivals.get(message.arrival)?.push(message.at!);
          else if (message.opened !== undefined) {
            opened[index] = message.opened;
            const total = opened.reduce((sum, n) => sum + n, 0);
            if (total % 200 === 0) progress(`  ${total}/${SESSIONS} ${listen ? 'listen streams' : 'sessions'} open`);
          } else if (message.ready) resolve(child);
        });
      });
    }),
  );
  const close = () => Promise.all(children.map((child) => new Promise<void>((done) => {
    child.removeAllListeners('exit');
    child.once('exit', () => done());
    child.stdin!.end();
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  })));
  return { arrivals, close };
}

/** Waits until every session heard of the invoice (and `ready()`), or 30 s at most. */

async function onListener() {
  const server = await startLiveServer(['listener']);
  const { pid } = server.ready;
  const url = server.ready.ready;
  const committed = new Map<string, number>();
  const written = new Map<string, number>();
  server.onMessage((message) => {
    if (typeof message.confirmed === 'string') committed.set(message.confirmed, message.at as number);
    if (typeof message.written === 'string') written.set(message.written, message.at as number);
  });
  /** Confirms each target in turn; each arrival's time after the feed published its confirmation. */
  const confirmEach = async (targets: string[], arrivals: Map<string, number[]>, who: string) => {
    const samples: number[] = [];
    const writtenAfter: number[] = [];
    let notified = SESSIONS;
    for (const target of targets) {
      server.send(`confirm ${target}`);
      await allNotified(arrivals.get(target)!, SESSIONS, () => committed.has(target));
      const at = committed.get(target);
      const got = at === undefined ? [] : arrivals.get(target)!.map((arrival) => arrival - at);
      notified = Math.min(notified, got.length);
      samples.push(...got);
      if (at !== undefined && written.has(target)) writtenAfter.push(written.get(target)! - at);
      progress(`  confirmed ${target}: ${got.length} ${who} notified; written to all ${round(written.get(target)! - at!, 1)} ms after the feed published it`);
    }
    return { samples, notified, writtenAfter };
  };
  try {
    const invoices: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      const created = await postJson(`${url}/invoice`, { amount_sats: 10_000 + i });
      if (created.status !== 201) throw new Error(`POST /invoice answered ${created.status}: ${created.text}`);
      invoices.push(created.json.invoice_id);
    }
    const targets = invoices.slice(0, TARGETS);
    await sleep(3_000);
    progress(`listener: idle CPU with no session, ${IDLE_S} s…`);
    const baseCpu = await idleCpuPct(pid, IDLE_S);
    const baseRss = rssMb(pid);
    progress(`listener: opening ${SESSIONS} sessions, ${PER_SESSION} subscriptions each…`);
    const { close, arrivals } = await openSessions(`${url}/mcp`, {}, targets, invoices.slice(TARGETS));
    await sleep(5_000);
    const sessionsRss = rssMb(pid);
    progress(`listener: idle CPU with the sessions, ${IDLE_S} s…`);
    const sessionsCpu = await idleCpuPct(pid, IDLE_S);
    const { samples, notified } = await confirmEach(targets, arrivals, 'sessions');
    await close();

    // The 2026-07-28 path: the same invoices' changes, on subscriptions/listen streams.
    const listenTargets = invoices.slice(TARGETS, 2 * TARGETS);
    // Time for the closed sessions' teardown and its garbage to settle, or the baseline measures it.
    await sleep(10_000);
    progress(`listener: idle CPU with no session and no stream (the listen baseline), ${IDLE_S} s…`);
    const listenBaseCpu = await idleCpuPct(pid, IDLE_S);
    const listenBaseRss = rssMb(pid);
    progress(`listener: opening ${SESSIONS} subscriptions/listen streams, ${PER_SESSION} invoices each…`);
    const streams = await openSessions(`${url}/mcp`, {}, listenTargets, invoices.slice(2 * TARGETS), true);
    await sleep(5_000);
    const listenRss = rssMb(pid);
    progress(`listener: idle CPU with the listen streams, ${IDLE_S} s…`);
    const listenCpu = await idleCpuPct(pid, IDLE_S);
    const listened = await confirmEach(listenTargets, streams.arrivals, 'listen streams');
    await streams.close();
    return { baseCpu, sessionsCpu, baseRss, sessionsRss, samples, notified, listen: { baseCpu: listenBaseCpu, cpu: listenCpu, baseRss: listenBaseRss, rss: listenRss, ...listened } };
  } finally {
    await server.stop();
  }
}

async function acrossCloud(): Promise<{ samples: number[]; notified: number; toldAfter: number[] }> {
  const database = await postgres.create();
  const leader = await startLiveServer(['cloud-leader', database.url]);
  const follower = await startLiveServer(['cloud-follower', database.url, leader.ready.esplora as string]);
  try {
    if (follower.ready.leader) throw new Error('the second Cloud instance leads: the measure would not cross instances');
    const url = follower.ready.ready;
    const merchant = await signupMerchant(url, { btc_xpub: testAccountKey(31) });
    const key = { 'x-service-api-key': merchant.api_key };
    const invoices: Array<{ invoice_id: string; receive_address: string; amount_sats: number }> = [];
    for (let i = 0; i < 20; i++) {
      const created = await postJson(`${url}/api/v1/invoice`, { amount_sats: 20_000 + i }, key);
      if (created.status !== 201) throw new Error(`POST /api/v1/invoice answered ${created.status}: ${created.text}`);
      invoices.push(created.json);
    }
    const targets = invoices.slice(0, TARGETS);
    progress(`cloud: opening ${SESSIONS} sessions on the instance that does not watch…`);
    const { close, arrivals } = await openSessions(`${url}/api/v1/mcp`, { authorization: `Bearer ${merchant.api_key}` }, targets.map((t) => t.invoice_id), invoices.slice(TARGETS).map((t) => t.invoice_id));
    // The leader picks the new merchant up within its refresh.
    await sleep(3_000);
    const told = new Map<string, number>();
    follower.onMessage((message) => {
      if (typeof message.told === 'string') told.set(message.told, message.at as number);
    });
    const samples: number[] = [];
    const toldAfter: number[] = [];
    let notified = SESSIONS;
    for (const target of targets) {
      leader.send(`pay ${target.receive_address} ${target.amount_sats}`);
      await allNotified(arrivals.get(target.invoice_id)!, SESSIONS);
      // The commit's time: paid_at, stamped by the leader's watcher just before its transaction commits.
      const read = await fetch(`${url}/api/v1/invoice/${target.invoice_id}`, { headers: key });
      const paidAt = Date.parse((await read.json()).paid_at);
      const measured = Number.isFinite(paidAt) ? arrivals.get(target.invoice_id)!.map((arrival) => arrival - paidAt) : [];
      notified = Math.min(notified, measured.length);
      samples.push(...measured);
      const toldAt = told.get(target.invoice_id);
      if (toldAt !== undefined && Number.isFinite(paidAt)) toldAfter.push(toldAt - paidAt);
      progress(`  confirmed ${target.invoice_id} on the leader: ${measured.length} sessions on the other instance notified; its feed told them all ${round(toldAt! - paidAt, 0)} ms after paid_at`);
    }
    await close();
    return { samples, notified, toldAfter };
  } finally {
    await follower.stop();
    await leader.stop();
    await database.drop();
  }
}

const listener = await onListener();
const cloud = await acrossCloud();

const sorted = [...listener.samples].sort((a, b) => a - b);
const p50 = round(percentile(sorted, 50), 1);
const p99 = round(percentile(sorted, 99), 1);
// The first session told shows the feed's own delay; the rest is the fan-out to 1,000 streams and the clients' parsing.
const first = round(sorted[0] ?? NaN, 1);
const idleCpu = round(listener.sessionsCpu - listener.baseCpu, 2);
const rssPer1000 = round(((listener.sessionsRss - listener.baseRss) * 1000) / SESSIONS, 1);
const listenSorted = [...listener.listen.samples].sort((a, b) => a - b);
const listenP50 = round(percentile(listenSorted, 50), 1);
const listenP99 = round(percentile(listenSorted, 99), 1);
const listenFirst = round(listenSorted[0] ?? NaN, 1);
const listenWritten = round(Math.max(...listener.listen.writtenAfter), 1);
const listenIdleCpu = round(listener.listen.cpu - listener.listen.baseCpu, 2);
const listenRatio = round(listener.listen.cpu / Math.max(listener.listen.baseCpu, 0.01));
const listenRssPer1000 = round(((listener.listen.rss - listener.listen.baseRss) * 1000) / SESSIONS, 1);
const cloudSorted = [...cloud.samples].sort((a, b) => a - b);
const cloudP99 = round(percentile(cloudSorted, 99), 1);
const cloudP50 = round(percentile(cloudSorted, 50), 1);
const cloudTold = round(Math.max(...cloud.toldAfter), 1);
const load = round(loadavg()[0]!);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

report(
  [
    `${SESSIONS} Streamable HTTP sessions, ${PER_SESSION} invoice subscriptions each, one listener (SQLite); machine: ${cpus().length} cores, load average ${load} (1 min), shared with other work`,
    `  idle CPU, no session (baseline)      ${round(listener.baseCpu, 2)} % of a core over ${IDLE_S} s`,
    `  idle CPU, ${SESSIONS} sessions           ${round(listener.sessionsCpu, 2)} % (ratio ${round(listener.sessionsCpu / Math.max(listener.baseCpu, 0.01))}x the baseline)`,
    `  sessions' own idle CPU               ${idleCpu} % (target <= ${TARGET_IDLE_CPU_PCT}): ${verdict(idleCpu <= TARGET_IDLE_CPU_PCT)}`,
    `  RSS ${round(listener.baseRss, 1)} MB without, ${round(listener.sessionsRss, 1)} MB with: ${rssPer1000} MB per 1,000 sessions`,
    `  commit to notification, ${TARGETS} confirmations x ${SESSIONS} sessions: first ${first} ms, p50 ${p50} ms, p99 ${p99} ms (target <= ${TARGET_P99_MS}), all notified: ${listener.notified === SESSIONS} — ${verdict(p99 <= TARGET_P99_MS && listener.notified === SESSIONS)}`,
    `${SESSIONS} subscriptions/listen streams (MCP 2026-07-28, SDK 2 clients) on the same listener's /mcp, ${PER_SESSION} invoices each`,
    `  idle CPU, no session or stream (baseline, measured again) ${round(listener.listen.baseCpu, 2)} % of a core over ${IDLE_S} s`,
    `  idle CPU, ${SESSIONS} listen streams      ${round(listener.listen.cpu, 2)} % (ratio ${listenRatio}x the baseline)`,
    `  streams' own idle CPU                ${listenIdleCpu} % (target <= ${TARGET_IDLE_CPU_PCT}): ${verdict(listenIdleCpu <= TARGET_IDLE_CPU_PCT)}`,
    `  RSS ${round(listener.listen.baseRss, 1)} MB without, ${round(listener.listen.rss, 1)} MB with: ${listenRssPer1000} MB per 1,000 streams`,
    `  commit to notification, ${TARGETS} confirmations x ${SESSIONS} streams: first ${listenFirst} ms, p50 ${listenP50} ms, p99 ${listenP99} ms (target <= ${TARGET_P99_MS}), all notified: ${listener.listen.notified === SESSIONS} — ${verdict(listenP99 <= TARGET_P99_MS && listener.listen.notified === SESSIONS)}`,
    `    (the listener had written each confirmation to all ${SESSIONS} streams at most ${listenWritten} ms after its feed published it; the rest is the clients' reading and parsing)`,
    `  two Cloud instances on Postgres, sessions on the one that does not watch: p50 ${cloudP50} ms, p99 ${cloudP99} ms from paid_at (target <= ${TARGET_CLOUD_P99_MS}), notified ${cloud.notified}/${SESSIONS} — ${verdict(cloudP99 <= TARGET_CLOUD_P99_MS && cloud.notified === SESSIONS)}`,
    `    (that instance's feed had told all ${SESSIONS} sessions at most ${cloudTold} ms after paid_at; the rest is writing the streams and the clients' parsing)`,
  ],
  {
    bench: 'mcp-live',
    value: idleCpu,
    unit: '% of a core',
    baseline: round(listener.baseCpu, 2),
    ratio: round(listener.sessionsCpu / Math.max(listener.baseCpu, 0.01)),
    target: TARGET_IDLE_CPU_PCT,
    idle_cpu_pct: idleCpu,
    rss_mb_per_1000_sessions: rssPer1000,
    notify_first_ms: first,
    notify_p50_ms: p50,
    notify_p99_ms: p99,
    notified: listener.notified,
    listen_idle_cpu_pct: listenIdleCpu,
    listen_baseline_cpu_pct: round(listener.listen.baseCpu, 2),
    listen_cpu_ratio: listenRatio,
    listen_rss_mb_per_1000_streams: listenRssPer1000,
    listen_notify_first_ms: listenFirst,
    listen_notify_p50_ms: listenP50,
    listen_notify_p99_ms: listenP99,
    listen_notified: listener.listen.notified,
    listen_written_all_ms: listenWritten,
    cloud_cross_instance_p50_ms: cloudP50,
    cloud_cross_instance_p99_ms: cloudP99,
    cloud_notified: cloud.notified,
    cloud_feed_told_all_ms: cloudTold,
    sessions: SESSIONS,
    subscriptions_per_session: PER_SESSION,
    load_avg_1m: load,
  },
);
// A figure that could not be measured is a failure, never a null in the report.
if (!cloudSorted.length) process.stderr.write('mcp-live: no session on the second Cloud instance was notified, so the cross-instance latency could not be measured.\n');
process.exit(cloudSorted.length ? 0 : 1);
