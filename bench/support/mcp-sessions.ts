/**
 * What the MCP session benches share: a server process to measure apart from the clients
 * (bench/support/live-server.ts), its CPU time and RSS from /proc, and many Streamable HTTP
 * sessions, each subscribed to some invoices, with every notification's arrival recorded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { progress } from './report.ts';

const CONNECT_CONCURRENCY = 50;
const CLK_TCK = 100;

export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LiveServer {
  child: ChildProcess;
  ready: Record<string, unknown> & { ready: string; pid: number };
  send(line: string): void;
  onMessage(handler: (message: Record<string, unknown>) => void): void;
  stop(): Promise<void>;
}

/** Starts bench/support/live-server.ts in `args[0]`'s mode (Node given `nodeOptions`); resolves once it serves. */
export function startLiveServer(args: string[], nodeOptions: string[] = []): Promise<LiveServer> {
  const script = fileURLToPath(new URL('./live-server.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const handlers: Array<(message: Record<string, unknown>) => void> = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`live-server ${args[0]} exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.ready) {
        resolve({
          child,
          ready: message as LiveServer['ready'],
          send: (text) => child.stdin!.write(`${text}\n`),
          onMessage: (handler) => handlers.push(handler),
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.stdin!.end();
              setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
            }),
        });
      }
      for (const handler of handlers) handler(message);
    });
  });
}

/** CPU time (user + system) a process used so far, in ms, from /proc. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

/** The process's CPU use over the next `seconds`, in % of one core. */
export async function idleCpuPct(pid: number, seconds: number): Promise<number> {
  const before = cpuMs(pid);
  await sleep(seconds * 1000);
  return ((cpuMs(pid) - before) / (seconds * 1000)) * 100;
}

export interface SessionsShape {
  sessions: number;
  /** Subscriptions of each session: every one of `targets`, then others of `others` in turn. */
  perSession: number;
}

/** Opens the sessions, each subscribed to the targets and to others of `others`; records each notification's arrival. */
export async function openSessions(url: string, headers: Record<string, string>, targets: string[], others: string[], shape: SessionsShape) {
  const { sessions, perSession } = shape;
  const arrivals = new Map<string, number[]>();
  for (const target of targets) arrivals.set(target, []);
  const clients: Client[] = [];
  let next = 0;
  const openOne = async (index: number) => {
    const client = new Client({ name: `live-${index}`, version: '1.0.0' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      arrivals.get(notification.params.uri.slice('invoice://'.length))?.push(now());
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    const mine = [...targets];
    for (let k = 0; mine.length < perSession; k++) mine.push(others[(index * (perSession - targets.length) + k) % others.length]!);
    for (const invoiceId of mine) await client.subscribeResource({ uri: `invoice://${invoiceId}` });
    clients.push(client);
  };
  await Promise.all(
    Array.from({ length: CONNECT_CONCURRENCY }, async () => {
      while (next < sessions) {
        const index = next++;
        await openOne(index);
        if ((index + 1) % 200 === 0) progress(`  ${index + 1}/${sessions} sessions open`);
      }
    }),
  );
  return { clients, arrivals };
}

/** Waits until `expected` sessions heard of the invoice (and `ready()`), or 30 s at most. */
export async function allNotified(arrivals: number[], expected: number, ready: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((arrivals.length < expected || !ready()) && Date.now() < deadline) await sleep(20);
}

export const closeAll = (clients: Client[]) => Promise.all(clients.map((client) => client.close().catch(() => undefined)));
