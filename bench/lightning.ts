/**
 * Lightning over Nostr Wallet Connect, against the sandbox's simulated wallet behind a local relay
 * (both in this process), with the listener in its own process:
 * - POST /invoice (btc) with Lightning (a make_invoice round trip over the relay, the BOLT11 checked)
 *   next to on-chain-only creation, one request at a time, the two kinds alternating so both see
 *   the same machine; p50 and p99 of each, and the ratio of the p50s (target <= 1.5);
 * - settlement to webhook: the simulated wallet settles an invoice (as a payer paying it) until the
 *   invoice is confirmed (notification, preimage check) and until invoice.confirmed reaches a local
 *   receiver (the outbox and the delivery worker, woken by the status change, on top).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { systemClock } from '../core/clock.ts';
import { startWebhookReceiver } from '../core/webhooks/receiver.ts';
import { newWebhookSecret } from '../core/webhooks/signature.ts';
import { startLightningWallet } from '../sandbox/lightning-wallet.ts';
import { startNostrRelay } from '../sandbox/nostr-relay.ts';
import { percentile, progress, report, round } from './support/report.ts';
import { freePort, startServer } from './support/server-process.ts';

const CREATIONS = Number(process.env.BENCH_CREATIONS ?? 300);
const SETTLEMENTS = Number(process.env.BENCH_SETTLEMENTS ?? 100);
const WARMUP = 30;
const TARGET_RATIO = 1.5;

interface Created {
  invoice_id: string;
  lightning_invoice?: string | null;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50), 2), p99: round(percentile(sorted, 99), 2) };
};

const relay = await startNostrRelay();
const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
const secret = newWebhookSecret();
// invoice.confirmed awaited, by invoice id: called with the moment it arrived and the event's confirmed_at (epoch ms).
const awaited = new Map<string, (at: number, confirmedAt: number) => void>();
const receiver = await startWebhookReceiver({
  host: '127.0.0.1',
  port: 0,
  path: '/webhook',
  secret,
  clock: systemClock,
  onEvent: (event) => {
    if (event.payload.event !== 'invoice.confirmed') return;
    awaited.get(String(event.payload.invoice_id))?.(performance.now(), Date.parse(String(event.payload.confirmed_at)));
  },
});
const dataDir = mkdtempSync(join(tmpdir(), 'bench-lightning-'));
const port = await freePort();
// A regtest account key, as the sandbox makes: the simulated wallet's invoices are regtest ones.
const accountKey = BIP32Factory(ecc).fromSeed(randomBytes(32), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered();
progress('listener with MERCHANT_NWC_URL (simulated wallet over a local relay)…');
const listener = await startServer(['bin/cli.ts', 'start'], {
  MERCHANT_BTC_XPUB: accountKey.toBase58(),
  BTC_NETWORK: 'regtest',
  MERCHANT_NWC_URL: wallet.connectionUri(),
  MERCHANT_WEBHOOK_URL: receiver.url,
  MERCHANT_WEBHOOK_SECRET: secret,
  SERVICE_RATE_LIMIT: 'off',
  // No chain here: the watcher polls a refused loopback port instead of a public explorer.
  BTC_ESPLORA_URL: 'http://127.0.0.1:9/api',
  DATABASE_URL: `sqlite:${join(dataDir, 'service.db')}`,
}, port);

/** One POST /invoice and how long it took (ms); throws when it fails or, asked for Lightning, comes without a BOLT11. */
async function create(methods: string[]): Promise<{ invoice: Created; ms: number }> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/invoice`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_sats: 1000, payment_methods: methods }),
  });
  const invoice = (await res.json()) as Created;
  const ms = performance.now() - started;
  if (res.status !== 201) throw new Error(`POST /invoice answered ${res.status}: ${JSON.stringify(invoice)}`);
  // An invoice that fell back to on-chain would time the fallback, not Lightning.
  if (methods.includes('lightning') && !invoice.lightning_invoice) throw new Error(`no lightning_invoice: ${JSON.stringify(invoice)}`);
  return { invoice, ms };
}

/** Alternates the two kinds so that both see the same load on the machine. */
async function creationLatencies() {
  for (let i = 0; i < WARMUP; i++) {
    await create(['onchain', 'lightning']);
    await create(['onchain']);
  }
  const lightning: number[] = [];
  const onchain: number[] = [];
  for (let i = 0; i < CREATIONS; i++) {
    lightning.push((await create(['onchain', 'lightning'])).ms);
    onchain.push((await create(['onchain'])).ms);
  }
  return { lightning: summary(lightning), onchain: summary(onchain) };
}

/**
 * Settles invoices one at a time and times each until its invoice.confirmed arrives, and until the
 * invoice was confirmed (the event's confirmed_at: the listener runs on this machine's clock).
 */
async function settlementLatencies() {
  const toWebhook: number[] = [];
  const toConfirmed: number[] = [];
  for (let i = 0; i < SETTLEMENTS; i++) {
    const { invoice } = await create(['lightning']);
    const delivered = confirmation(invoice.invoice_id);
    const started = performance.now();
    const startedAt = Date.now();
    await wallet.settle(invoice.lightning_invoice!);
    const { at, confirmedAt } = await delivered;
    toWebhook.push(at - started);
    toConfirmed.push(confirmedAt - startedAt);
  }
  return { toWebhook: summary(toWebhook), toConfirmed: summary(toConfirmed) };
}

/** When invoice.confirmed of `invoiceId` reaches the receiver, and its confirmed_at; rejects after 30 s. */
function confirmation(invoiceId: string): Promise<{ at: number; confirmedAt: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`invoice.confirmed of ${invoiceId} did not arrive in 30 s`)), 30_000);
    awaited.set(invoiceId, (at, confirmedAt) => {
      clearTimeout(timer);
      awaited.delete(invoiceId);
      resolve({ at, confirmedAt });
    });
  });
}

try {
  progress(`POST /invoice, ${CREATIONS} with Lightning and ${CREATIONS} on-chain only, alternating…`);
  const creation = await creationLatencies();
  progress(`settlement to webhook, ${SETTLEMENTS} invoices…`);
  const settlement = await settlementLatencies();
  const ratio = creation.lightning.p50 / creation.onchain.p50;
  report(
    [
      `POST /invoice (btc), one at a time, ${CREATIONS} of each, SQLite, simulated wallet over a local relay:`,
      `  with Lightning: p50 ${creation.lightning.p50} ms  p99 ${creation.lightning.p99} ms`,
      `  on-chain only:  p50 ${creation.onchain.p50} ms  p99 ${creation.onchain.p99} ms`,
      `  ratio of p50s: ${round(ratio)} (target <= ${TARGET_RATIO})`,
      `settlement in the wallet, ${SETTLEMENTS} invoices one at a time:`,
      `  -> invoice confirmed (its confirmed_at): p50 ${settlement.toConfirmed.p50} ms  p99 ${settlement.toConfirmed.p99} ms`,
      `  -> invoice.confirmed at the receiver:    p50 ${settlement.toWebhook.p50} ms  p99 ${settlement.toWebhook.p99} ms (the delivery worker woken by the status change)`,
    ],
    {
      bench: 'lightning',
      value: creation.lightning.p50,
      unit: 'ms',
      baseline: creation.onchain.p50,
      ratio: round(ratio, 3),
      target: `<= ${TARGET_RATIO} x on-chain p50`,
      lightning_p50_ms: creation.lightning.p50,
      lightning_p99_ms: creation.lightning.p99,
      onchain_p50_ms: creation.onchain.p50,
      onchain_p99_ms: creation.onchain.p99,
      settle_to_confirmed_p50_ms: settlement.toConfirmed.p50,
      settle_to_confirmed_p99_ms: settlement.toConfirmed.p99,
      settle_to_webhook_p50_ms: settlement.toWebhook.p50,
      settle_to_webhook_p99_ms: settlement.toWebhook.p99,
    },
  );
} finally {
  listener.kill('SIGTERM');
  await receiver.close();
  await wallet.close();
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
