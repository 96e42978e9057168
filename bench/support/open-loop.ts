import { Agent, request } from 'node:http';
import { percentile } from './report.ts';

export interface OpenLoopResult {
  sent: number;
  ok: number;
  failed: number;
  /** Achieved rate of answered requests, per second. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * An open-loop load: one POST every 1/`ratePerS` s on a fixed schedule, whether or not earlier ones
 * were answered (a saturating load, and autocannon's rate option, which sends each second's quota
 * in a burst, measure something else). Latency is counted from when a request was due, not from
 * when it went out, so a stalled server or a late timer is charged to the latency, not hidden.
 */
export async function openLoop(options: { url: string; body: string; ratePerS: number; durationS: number }): Promise<OpenLoopResult> {
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(options.ratePerS * options.durationS);
  const intervalMs = 1000 / options.ratePerS;
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const send = (dueAt: number) =>
    new Promise<void>((resolve) => {
      const req = request(
        { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode! >= 200 && res.statusCode! < 300) latencies.push(performance.now() - dueAt);
            else failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(options.body);
    });

  const started = performance.now();
  let next = 0;
  while (next < total) {
    const now = performance.now();
    for (; next < total && started + next * intervalMs <= now; next++) inFlight.push(send(started + next * intervalMs));
    if (next < total) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + next * intervalMs - performance.now())));
  }
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(latencies, p) * 100) / 100;
  return { sent: total, ok: latencies.length, failed, rps: latencies.length / elapsedS, p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}
