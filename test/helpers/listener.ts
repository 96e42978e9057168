import { defaultChains } from '../../core/chains/default-chains.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startListener, type RunningListener } from '../../listener/app.ts';
import type { Clock } from '../../core/clock.ts';
import { loadConfig } from '../../listener/config.ts';
import { type Env } from '../../edge/settings.ts';
import type { CoreDatabase } from '../../core/schema.ts';
import { silentLogger, type Logger } from '../../core/log.ts';

export const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

/** For tests without a chain: the watcher gets a refused loopback port instead of mempool.space. */
export const NO_CHAIN_ESPLORA_URL = 'http://127.0.0.1:9/api';

export function tempSqliteUrl(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'service-test-')), 'service.db')}`;
}

export interface TestListenerOptions {
  env?: Env;
  clock?: Clock;
  logger?: Logger;
  database?: CoreDatabase;
}

/** A real listener on a random loopback port with a fresh SQLite file unless told otherwise. */
export async function startTestListener(options: TestListenerOptions = {}): Promise<RunningListener> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: tempSqliteUrl(),
    MERCHANT_BTC_XPUB: BIP84_ZPUB,
    SERVICE_RATE_LIMIT: 'off',
    BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
    ...options.env,
  }, defaultChains);
  return startListener(config, { clock: options.clock, logger: options.logger ?? silentLogger, database: options.database });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}
