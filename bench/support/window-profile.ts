/**
 * A CPU profile of a running node process over a window of its life (an idle window, say), taken
 * through its inspector: SIGUSR1 opens it on 127.0.0.1:9229, the Chrome DevTools Protocol starts and
 * stops the V8 profiler. `--cpu-prof` cannot do this: it profiles a whole life and writes at exit.
 * The open inspector and the profiler's own thread cost a little CPU while the window lasts.
 */
import WebSocket from 'ws';
import type { CpuProfile } from './cpu-profile.ts';

const INSPECTOR = 'http://127.0.0.1:9229';

async function inspectorUrl(): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      const targets = (await (await fetch(`${INSPECTOR}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
      if (targets[0]) return targets[0].webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the process's inspector did not open on ${INSPECTOR} (is the port taken?)`);
}

/** Profiles process `pid` while `during` runs, sampling every `intervalUs`. */
export async function profileWindow<T>(pid: number, during: () => Promise<T>, intervalUs = 1_000): Promise<{ result: T; profile: CpuProfile }> {
  process.kill(pid, 'SIGUSR1');
  const socket = new WebSocket(await inspectorUrl());
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let lastId = 0;
  const answers = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) answers.get(message.id)?.(message.result);
  });
  const call = <R>(method: string, params: object = {}) =>
    new Promise<R>((resolve) => {
      const id = ++lastId;
      answers.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: intervalUs });
    await call('Profiler.start');
    const result = await during();
    const { profile } = await call<{ profile: CpuProfile }>('Profiler.stop');
    return { result, profile };
  } finally {
    socket.close();
  }
}
