// Start-up time and memory of the listener: `npm start` as it runs now (compiled JavaScript from
// dist/, through bin/service.js) against the same CLI run from TypeScript through tsx (the
// baseline, how `npm start` ran before the production build), in the same run. Each round starts
// both, alternately, on an empty SQLite file with a Bitcoin key and an unreachable chain source,
// so nothing but loading the program and opening the database is measured. Start-up is from spawn
// to the first 200 from /health; RSS is read from /proc once it answers (Linux), peak included.
// Run: npm run bench -- listener-startup
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL } from '../test/helpers/listener.ts';
import { MB, processMemory } from './support/process-memory.ts';
import { progress, report, round } from './support/report.ts';

const ROUNDS = 5;
const root = fileURLToPath(new URL('..', import.meta.url));
const modes = {
  compiled: ['bin/service.js', 'start'],
  tsx: ['--import', 'tsx', 'bin/cli.ts', 'start'],
} as const;
type Mode = keyof typeof modes;

interface Sample {
  startMs: number;
  rssMb: number;
  peakMb: number;
}

/** VmRSS and VmHWM (the peak) of a live process, in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const { rss, peak } = processMemory(pid);
  return { rssMb: rss / MB, peakMb: peak / MB };
}

async function startOnce(mode: Mode): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, modes[mode], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      MERCHANT_BTC_XPUB: BIP84_ZPUB,
      BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
      DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`${mode} listener exited (${code}) before answering`))));
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const match = /"msg":"listener started","url":"([^"]+)"/.exec(output);
        if (match) resolve(match[1]);
      });
    }),
    exited,
  ]);
  const health = await fetch(`${url}/health`);
  if (health.status !== 200) throw new Error(`${mode} /health answered ${health.status}`);
  const startMs = performance.now() - started;
  const memory = memoryOf(child.pid!);
  exited.catch(() => undefined);
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
  rmSync(dir, { recursive: true, force: true });
  return { startMs, ...memory };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// `npm run build` first, so the compiled starts below find dist/ up to date.
const build = spawnSync(process.execPath, ['bin/build.js'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
const builtIn = /compiled in ([\d.]+) s/.exec(build.stderr)?.[1];

const samples: Record<Mode, Sample[]> = { compiled: [], tsx: [] };
for (let i = 0; i < ROUNDS; i++) {
  for (const mode of ['tsx', 'compiled'] as const) {
    const sample = await startOnce(mode);
    samples[mode].push(sample);
    progress(`[round ${i + 1}/${ROUNDS}] ${mode}: ${sample.startMs.toFixed(0)} ms, RSS ${sample.rssMb.toFixed(0)} MB (peak ${sample.peakMb.toFixed(0)} MB)`);
  }
}

const figure = (mode: Mode, key: keyof Sample) => median(samples[mode].map((s) => s[key]));
const row = (mode: Mode) =>
  `${mode.padEnd(10)}${figure(mode, 'startMs').toFixed(0).padStart(16)}${figure(mode, 'rssMb').toFixed(0).padStart(10)}${figure(mode, 'peakMb').toFixed(0).padStart(12)}`;
const startRatio = round(figure('compiled', 'startMs') / figure('tsx', 'startMs'));
const rssRatio = round(figure('compiled', 'rssMb') / figure('tsx', 'rssMb'));
report(
  [
    '',
    `listener-startup: the listener from spawn to its first /health answer, SQLite, no chain reachable; median of ${ROUNDS} starts each, alternating`,
    '',
    'mode          start-up (ms)  RSS (MB)  peak (MB)',
    row('tsx'),
    row('compiled'),
    '',
    `compiled vs tsx (baseline, same run): ${startRatio}x the start-up time, ${rssRatio}x the RSS`,
    builtIn ? `dist/ was built first, in ${builtIn} s (not counted above)` : 'dist/ was up to date',
  ],
  {
    bench: 'listener-startup',
    value: Math.round(figure('compiled', 'startMs')),
    unit: 'ms',
    baseline: Math.round(figure('tsx', 'startMs')),
    ratio: startRatio,
    target: '< 1 x tsx, start-up and RSS',
    rss_mb: round(figure('compiled', 'rssMb'), 1),
    rss_baseline_mb: round(figure('tsx', 'rssMb'), 1),
    rss_ratio: rssRatio,
    peak_rss_mb: round(figure('compiled', 'peakMb'), 1),
    peak_rss_baseline_mb: round(figure('tsx', 'peakMb'), 1),
    ...(builtIn ? { build_s: Number(builtIn) } : {}),
  },
);
