// How fast the `service` command answers: `service --version`, `service --help`, and `service mine`
// against a real local regtest chain (the sandbox's chain server, in this process), each spawned as
// a user runs it (`node bin/service.js …`: the freshness check of dist/, then the compiled CLI),
// against `node -e 0` in the same run: the floor no command can go below. Like hyperfine: one
// warm-up each, then ROUNDS runs of every command, interleaved so load from elsewhere falls on all
// alike; p50 and p90 of the wall time from spawn to exit. `dist/ directly` skips the freshness
// check (node dist/bin/cli.js --version), to show what a check costs; `--version` and `--help` check
// only the sources they load, `start --help` the whole tree (and loads the start command, not the application).
// Run: npm run bench -- startup   (BENCH_ROUNDS changes the number of runs, default 15)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../sandbox/local-chain-server.ts';
import { percentile, progress, report, round } from './support/report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const TARGET_VERSION_MS = 150;
const TARGET_MINE_MS = 400;
const root = fileURLToPath(new URL('..', import.meta.url));
const service = join(root, 'bin/service.js');

// `npm run build` first, so every run below finds dist/ up to date (as after `npm ci && npm run build`).
const build = spawnSync(process.execPath, [join(root, 'bin/build.js')], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);

const chainServer = await startLocalChainServer(new LocalBtcChain());
const chainPort = new URL(chainServer.controlUrl).port;
// An empty directory: no ./data/sandbox.json, no .env; `mine` finds the chain by SANDBOX_CHAIN_PORT.
const cwd = mkdtempSync(join(tmpdir(), 'bench-cli-'));

const commands = {
  'node -e 0': ['-e', '0'],
  'service --version': [service, '--version'],
  'service --help': [service, '--help'],
  'service mine': [service, 'mine'],
  'service start --help': [service, 'start', '--help'],
  'dist/ directly': [join(root, 'dist/bin/cli.js'), '--version'],
} as const;
type Name = keyof typeof commands;

/** Wall time of one run, spawn to exit; a run that fails stops the bench with its output. */
function runOnce(name: Name): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, commands[name], {
    cwd,
    env: { PATH: process.env.PATH ?? '', SANDBOX_CHAIN_PORT: chainPort },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${name} exited ${code}: ${output}`));
      else if (name === 'service mine' && !/^mined 1 block\(s\); height \d+$/m.test(output)) reject(new Error(`service mine printed: ${output}`));
      else resolve(ms);
    });
  });
}

const names = Object.keys(commands) as Name[];
const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
try {
  for (const name of names) await runOnce(name);
  for (let i = 0; i < ROUNDS; i++) {
    for (const name of names) samples[name].push(await runOnce(name));
    progress(`[round ${i + 1}/${ROUNDS}] ${names.map((name) => `${name} ${samples[name].at(-1)!.toFixed(0)} ms`).join(', ')}`);
  }
} finally {
  await chainServer.close();
  rmSync(cwd, { recursive: true, force: true });
}

const sorted = (name: Name) => [...samples[name]].sort((a, b) => a - b);
const p50 = (name: Name) => percentile(sorted(name), 50);
const p90 = (name: Name) => percentile(sorted(name), 90);
const node = p50('node -e 0');
const row = (name: Name) =>
  `${name.padEnd(21)}${p50(name).toFixed(0).padStart(9)}${p90(name).toFixed(0).padStart(9)}${(p50(name) - node).toFixed(0).padStart(15)}${round(p50(name) / node).toFixed(2).padStart(10)}`;
const version = p50('service --version');
const mine = p50('service mine');
const met = (value: number, target: number) => (value <= target ? 'met' : `missed by ${(value - target).toFixed(0)} ms`);
report(
  [
    '',
    `startup: wall time from spawn to exit, ${ROUNDS} runs of each command, interleaved, after one warm-up each`,
    '',
    'command                 p50 ms   p90 ms  over node (ms)  × node',
    ...names.map(row),
    '',
    `service --version: ${version.toFixed(0)} ms (target ≤ ${TARGET_VERSION_MS} ms: ${met(version, TARGET_VERSION_MS)})`,
    `service mine:      ${mine.toFixed(0)} ms (target ≤ ${TARGET_MINE_MS} ms: ${met(mine, TARGET_MINE_MS)})`,
    `node -e 0 alone takes ${node.toFixed(0)} ms in this run: on a loaded machine read the "over node" column`,
  ],
  {
    bench: 'startup',
    value: Math.round(version),
    unit: 'ms',
    baseline: Math.round(node),
    ratio: round(version / node),
    target: `service --version ≤ ${TARGET_VERSION_MS} ms, service mine ≤ ${TARGET_MINE_MS} ms (p50)`,
    version_p90_ms: Math.round(p90('service --version')),
    help_ms: Math.round(p50('service --help')),
    start_help_ms: Math.round(p50('service start --help')),
    mine_ms: Math.round(mine),
    mine_p90_ms: Math.round(p90('service mine')),
    mine_ratio: round(mine / node),
    dist_directly_ms: Math.round(p50('dist/ directly')),
    version_met: version <= TARGET_VERSION_MS,
    mine_met: mine <= TARGET_MINE_MS,
  },
);
