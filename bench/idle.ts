// Idle CPU: what a listener costs while nothing happens. Started side by side and measured over the
// same window (so the machine's load weighs on all alike):
//   - bare: a bare Node HTTP server, the baseline;
//   - listener: `service start` (compiled, dist/) with Bitcoin and the three EVM chains configured on
//     local sources: the sandbox's regtest chain over Esplora (served from this process) and one anvil
//     node per EVM chain, each with its WebSocket URL (ETH_WS_URL, …) as a real deployment would give;
//   - listener, polling: the same without the WebSocket URLs, at the chains' own block times;
//   - sandbox: `service start` with no merchant key (its chains in its own process, its anvil nodes
//     its children).
// CPU is read from /proc (utime + stime) at the start and end of the window; the service processes
// and the local nodes (anvil, the chain served from here) are reported apart. Linux only.
// Run: npm run bench -- idle   (IDLE_BENCH_SECONDS: the window, default 60)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evmSpecsIn } from '../core/evm/evm-definition.ts';
import { evmSettingNamesOf } from '../core/evm/evm-config.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { defaultChains } from '../core/chains/default-chains.ts';
import { progress, report, round } from './support/report.ts';

const WINDOW_S = Number(process.env.IDLE_BENCH_SECONDS ?? 60);
/** Start-up and the first passes (the first scan, the first socket subscriptions) are not idle. */
const SETTLE_MS = 20_000;
const TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
const root = fileURLToPath(new URL('..', import.meta.url));
const serviceBin = join(root, 'bin/service.js');

/** CPU seconds a process has used so far (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After the command name: field 14 (utime) and 15 (stime) of proc(5) are the 12th and 13th here.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** The direct children of a process (the sandbox's anvil nodes). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number),
  );
}

function startProcess(name: string, args: string[], env: Record<string, string>, cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/"msg":"listener started"|^listening/m.test(output)) {
        child.stdout!.off('data', onData);
        // Keep draining, never reading: a full pipe would block the process measured.
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before starting:\n${output.slice(-4_000)}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await closed;
}

const build = spawnSync(process.execPath, ['bin/build.js'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);

const dir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
// startSandbox keeps its files under ./data: here, not in the checkout.
process.chdir(dir);
progress('starting the local chains (regtest over Esplora here, three anvil nodes)…');
const chains = await startSandbox({ SANDBOX_CHAIN_PORT: '0' }, { chains: defaultChains, onWebhook: () => undefined, database: join(dir, 'chains.db') });
const children: ChildProcess[] = [];
try {
  const wsNames = evmSpecsIn(defaultChains).map((spec) => evmSettingNamesOf(spec));
  const local = Object.fromEntries(Object.entries(chains.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const polling = Object.fromEntries(Object.entries(local).filter(([name]) => !wsNames.some((names) => name === names.wsUrl || name === names.blockTimeMs)));
  progress('starting the bare server, the listeners and the sandbox…');
  const [bare, listener, pollingListener, sandbox] = await Promise.all([
    startProcess('bare server', ['-e', "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', () => console.log('listening'))"], {}, dir),
    startProcess('listener', [serviceBin, 'start'], { ...local, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'listener.db')}` }, dir),
    startProcess('listener (polling)', [serviceBin, 'start'], { ...polling, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'polling.db')}` }, dir),
    startProcess('sandbox', [serviceBin, 'start'], { PORT: '0', SANDBOX_CHAIN_PORT: '0' }, mkdtempSync(join(dir, 'sandbox-'))),
  ]);
  children.push(bare, listener, pollingListener, sandbox);
  const isAnvil = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'anvil';
  const sandboxNodes = childrenOf(sandbox.pid!).filter(isAnvil);
  progress(`settling for ${SETTLE_MS / 1000} s, then measuring ${WINDOW_S} s…`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

  const localNodePids = childrenOf(process.pid).filter(isAnvil);
  const measured = { bare, listener, pollingListener, sandbox };
  const pids = { ...Object.fromEntries(Object.entries(measured).map(([name, child]) => [name, [child.pid!]])), localNodes: localNodePids, sandboxNodes };
  const cpuOf = (list: number[]) => list.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const before = Object.fromEntries(Object.entries(pids).map(([name, list]) => [name, cpuOf(list)]));
  const hereBefore = process.cpuUsage();
  const loadBefore = loadavg()[0];
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_S * 1000));
  const seconds = (performance.now() - startedAt) / 1000;
  const here = process.cpuUsage(hereBefore);
  const percent = Object.fromEntries(Object.entries(pids).map(([name, list]) => [name, round(((cpuOf(list) - before[name]) / seconds) * 100, 2)]));
  const chainHere = round(((here.user + here.system) / 1e6 / seconds) * 100, 2);
  const load = [loadBefore, loadavg()[0]].map((value) => round(value, 1));
  const line = (name: string, value: number, note: string) => `${name.padEnd(34)}${value.toFixed(2).padStart(8)} %   ${note}`;
  report(
    [
      '',
      `idle: CPU over ${round(seconds, 0)} s with nothing to do, % of one core (load average ${load.join(' → ')} on ${TICKS_PER_S} Hz ticks)`,
      '',
      line('bare Node HTTP server (baseline)', percent.bare, ''),
      line('listener, local sources + WS', percent.listener, 'target ≤ 1 %: Bitcoin + Base, Ethereum, Polygon'),
      line('listener, local sources, polling', percent.pollingListener, 'no WebSocket URLs: paced by block time'),
      line('sandbox (service process)', percent.sandbox, 'target ≤ 2 %: its regtest chain in-process'),
      line(`sandbox's anvil nodes (${sandboxNodes.length})`, percent.sandboxNodes, 'not the service: the local nodes'),
      line(`listeners' anvil nodes (${localNodePids.length})`, percent.localNodes, 'shared by both listeners'),
      line("listeners' regtest chain (bench)", chainHere, 'this process: Esplora + relay for both listeners'),
      '',
      `listener vs bare server (same run): ${round(percent.listener / Math.max(percent.bare, 0.01), 1)}x`,
    ],
    {
      bench: 'idle',
      value: percent.listener,
      unit: '% of a core',
      baseline: percent.bare,
      ratio: round(percent.listener / Math.max(percent.bare, 0.01), 1),
      target: 'listener ≤ 1 %, sandbox ≤ 2 %',
      sandbox_percent: percent.sandbox,
      polling_listener_percent: percent.pollingListener,
      sandbox_nodes_percent: percent.sandboxNodes,
      local_nodes_percent: percent.localNodes,
      local_chain_percent: chainHere,
      window_s: round(seconds, 0),
      load_average: load,
      met: percent.listener <= 1 && percent.sandbox <= 2,
    },
  );
} finally {
  await Promise.all(children.map(stop));
  await chains.close();
  process.chdir(root);
  rmSync(dir, { recursive: true, force: true });
}
