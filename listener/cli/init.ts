import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import type { Command } from './command.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';

export function newApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/**
 * Adds the secrets that `.env` lacks, never replacing one it has: overwriting a live key would
 * lock out every client that uses it.
 */
export function initEnvFile(path: string): { created: Record<string, string>; kept: string[] } {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const existing = parseEnv(text);
  const wanted: Record<string, () => string> = { SERVICE_API_KEY: newApiKey, MERCHANT_WEBHOOK_SECRET: newWebhookSecret };
  const created: Record<string, string> = {};
  const kept: string[] = [];
  for (const [name, make] of Object.entries(wanted)) {
    if (existing[name]) kept.push(name);
    else created[name] = make();
  }
  if (Object.keys(created).length) {
    const lines = Object.entries(created).map(([name, value]) => `${name}=${value}`);
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    writeFileSync(path, `${text}${separator}${lines.join('\n')}\n`, { mode: 0o600 });
  }
  return { created, kept };
}

export const initCommand: Command = {
  name: 'init',
  usage: `
Usage: service init [--env-file PATH]

Generates a strong SERVICE_API_KEY and a MERCHANT_WEBHOOK_SECRET (prefix whsec_), prints them once
and appends them to the .env file (default ./.env). A secret already in the file is kept, never
overwritten.`,
  options: { 'env-file': { type: 'string' } },
  async run({ values }) {
    const path = (values['env-file'] as string | undefined) ?? '.env';
    const { created, kept } = initEnvFile(path);
    for (const [name, value] of Object.entries(created)) process.stdout.write(`${name}=${value}\n`);
    for (const name of kept) process.stdout.write(`${name} already set in ${path}; kept it.\n`);
    if (Object.keys(created).length) {
      process.stdout.write(`\nWritten to ${path}. These values are shown only now: store them in your secret manager.\n`);
    }
    return 0;
  },
};
