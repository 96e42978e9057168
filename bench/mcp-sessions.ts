/**
 * What idle MCP sessions cost: one listener (SQLite) measured with no session, then with 1,000
 * Streamable HTTP sessions of the 2025 protocol, each holding its event stream (GET) and 10 invoice
 * subscriptions, in the same run. Targets: the sessions add at most 100 MB and at most 2% of a
 * core of idle CPU. Memory: the RSS 5 s after the last session opened and after 30 s idle, and the
 * V8 heap in use after a full collection (before the baseline, after the sessions' figures); the
 * larger of RSS added and live heap added counts. One confirmation checks every session is still told.
 * Run: npm run bench -- mcp-sessions
 */
import { cpus, loadavg } from 'node:os';
import { postJson } from '../test/helpers/listener.ts';
import { allNotified, closeAll, idleCpuPct, openSessions, rssMb, sleep, startLiveServer, type LiveServer } from './support/mcp-sessions.ts';
import { progress, report, round } from './support/report.ts';

const SESSIONS = 1_000;
const PER_SESSION = 10;
const INVOICES = 1_000;
const IDLE_S = 30;
const TARGET_RSS_MB = 100;
const TARGET_IDLE_CPU_PCT = 2;

/** The server's V8 heap in use after a full collection, in MB: what is live. */
function heapUsedMb(server: LiveServer): Promise<number> {
  return new Promise((resolve) => {
    server.onMessage((message) => {
      const memory = message.memory as { heapUsed: number } | undefined;
      if (memory) resolve(memory.heapUsed / 1024 / 1024);
    });
    server.send('memory');
  });
}

// --expose-gc only lets the `memory` command collect before it reads; nothing else calls gc().
const server = await startLiveServer(['listener'], ['--expose-gc']);
const { pid } = server.ready;
const url = server.ready.ready;
let confirmedAt: number | undefined;
server.onMessage((message) => {
  if (typeof message.confirmed === 'string') confirmedAt = message.at as number;
});

progress(`creating ${INVOICES} invoices…`);
const invoices: string[] = [];
for (let i = 0; i < INVOICES; i++) {
  const created = await postJson(`${url}/invoice`, { amount_sats: 10_000 + i });
  if (created.status !== 201) throw new Error(`POST /invoice answered ${created.status}: ${created.text}`);
  invoices.push(created.json.invoice_id);
}
// Collected first, so the sessions' RSS is measured against the leanest baseline.
const baseHeap = await heapUsedMb(server);
await sleep(3_000);
progress(`idle CPU with no session, ${IDLE_S} s…`);
const baseCpu = await idleCpuPct(pid, IDLE_S);
const baseRss = rssMb(pid);

progress(`opening ${SESSIONS} sessions, ${PER_SESSION} subscriptions each…`);
const opening = performance.now();
const target = invoices[0]!;
const { clients, arrivals } = await openSessions(`${url}/mcp`, {}, [target], invoices.slice(1), { sessions: SESSIONS, perSession: PER_SESSION });
const openS = (performance.now() - opening) / 1000;
await sleep(5_000);
const openedRss = rssMb(pid);
progress(`idle CPU with the sessions, ${IDLE_S} s…`);
const sessionsCpu = await idleCpuPct(pid, IDLE_S);
const idleRss = rssMb(pid);
const sessionsHeap = await heapUsedMb(server);

server.send(`confirm ${target}`);
await allNotified(arrivals.get(target)!, SESSIONS, () => confirmedAt !== undefined);
const notified = arrivals.get(target)!.length;
await closeAll(clients);
await server.stop();

const rssAdded = round(Math.max(openedRss, idleRss) - baseRss, 1);
const cpuAdded = round(sessionsCpu - baseCpu, 2);
const heapAdded = round(sessionsHeap - baseHeap, 1);
// RSS moves with the allocator's high-water marks (the invoices created first, the garbage of the
// sessions' 11,000 requests): it can even fall. The sessions cost at least their live heap.
const added = Math.max(rssAdded, heapAdded);
const load = round(loadavg()[0]!);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

report(
  [
    `${SESSIONS} idle Streamable HTTP sessions, ${PER_SESSION} invoice subscriptions each (of ${INVOICES} invoices), one listener (SQLite), opened in ${round(openS, 1)} s; machine: ${cpus().length} cores, load average ${load} (1 min), shared with other work`,
    `  RSS, no session (baseline)          ${round(baseRss, 1)} MB`,
    `  RSS, ${SESSIONS} sessions                ${round(openedRss, 1)} MB 5 s after opening, ${round(idleRss, 1)} MB after ${IDLE_S} s idle (ratio ${round(Math.max(openedRss, idleRss) / baseRss)}x)`,
    `  sessions' own RSS                   ${rssAdded} MB; ${round((rssAdded * 1024) / SESSIONS, 1)} KB a session`,
    `  V8 heap live                        ${round(baseHeap, 1)} MB without, ${round(sessionsHeap, 1)} MB with: ${heapAdded} MB, ${round((heapAdded * 1024) / SESSIONS, 1)} KB a session`,
    `  sessions' memory (the larger)       ${added} MB (target <= ${TARGET_RSS_MB}): ${verdict(added <= TARGET_RSS_MB)}`,
    `  idle CPU, no session (baseline)     ${round(baseCpu, 2)} % of a core over ${IDLE_S} s`,
    `  idle CPU, ${SESSIONS} sessions          ${round(sessionsCpu, 2)} % (ratio ${round(sessionsCpu / Math.max(baseCpu, 0.01))}x)`,
    `  sessions' own idle CPU              ${cpuAdded} % (target <= ${TARGET_IDLE_CPU_PCT}): ${verdict(cpuAdded <= TARGET_IDLE_CPU_PCT)}`,
    `  one confirmation afterwards: ${notified}/${SESSIONS} sessions notified`,
  ],
  {
    bench: 'mcp-sessions',
    value: added,
    unit: 'MB per 1,000 sessions (RSS or live heap added, the larger)',
    baseline: round(baseRss, 1),
    ratio: round(Math.max(openedRss, idleRss) / baseRss),
    target: TARGET_RSS_MB,
    rss_added_mb: rssAdded,
    heap_added_mb: heapAdded,
    rss_base_mb: round(baseRss, 1),
    rss_opened_mb: round(openedRss, 1),
    rss_idle_mb: round(idleRss, 1),
    heap_base_mb: round(baseHeap, 1),
    heap_sessions_mb: round(sessionsHeap, 1),
    idle_cpu_base_pct: round(baseCpu, 2),
    idle_cpu_sessions_pct: round(sessionsCpu, 2),
    idle_cpu_added_pct: cpuAdded,
    idle_cpu_target_pct: TARGET_IDLE_CPU_PCT,
    notified,
    sessions: SESSIONS,
    subscriptions_per_session: PER_SESSION,
    load_avg_1m: load,
  },
);
// Sessions that were no longer told of a confirmation would make the figures meaningless.
process.exit(notified === SESSIONS ? 0 : 1);
