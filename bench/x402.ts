import { defaultChains } from '../core/chains/default-chains.ts';
/**
 * An invoice paid through x402 (the 402 answer, the signature, verify, settle, mined: one call of
 * the official client @x402/fetch) against the same payment sent as a plain token transfer by the
 * sandbox wallet and mined, in one run on the local chain (anvil, mining each transaction at once).
 * Also the 402 answer alone. Targets: x402_vs_transfer_ratio <= 1.5 at p50; the 402 answer < 5 ms p50.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { startListener } from '../listener/app.ts';
import { loadConfig } from '../listener/config.ts';
import { silentLogger } from '../core/log.ts';
import { startLocalEvm } from '../sandbox/local-evm.ts';
import { percentile, progress, report, round } from './support/report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const QUOTES = Number(process.env.BENCH_QUOTES ?? 500);
const UNITS = 1_000_000n;

const sorted = (samples: number[]) => [...samples].sort((a, b) => a - b);
async function timed<T>(run: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await run();
  return [performance.now() - started, value];
}

progress('local chain (anvil) with the sandbox tokens…');
const evm = await startLocalEvm({ chains: defaultChains });
const settlerKey = `0x${randomBytes(32).toString('hex')}` as const;
const payerKey = `0x${randomBytes(32).toString('hex')}` as const;
const payer = privateKeyToAccount(payerKey);
await evm.anvil.rpc('anvil_setBalance', [privateKeyToAccount(settlerKey).address, '0x56BC75E2D63100000']);
await evm.tokens.usdc.transfer(payer.address, UNITS * BigInt(ROUNDS + 5), 0);
// xpub USDC only: each invoice its own address, as each plain transfer.
const { MERCHANT_EVM_ADDRESS: _fixed, BASE_TOKENS: _tokens, ...chainEnv } = evm.env;
const listener = await startListener(
  loadConfig({
    ...chainEnv,
    PORT: '0',
    DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-x402-')), 'x402.db')}`,
    SERVICE_RATE_LIMIT: 'off',
    X402_RATE_LIMIT: 'off',
    BASE_TOKENS: `usdc:${evm.tokens.usdc.address}`,
    X402_SETTLER_KEY: settlerKey,
  }, defaultChains),
  { logger: silentLogger },
);
const network = `eip155:${evm.anvil.chainId}` as const;
const client = new x402Client();
registerExactEvmScheme(client, { signer: payer });
client.setSpendControls({ allowedAssets: [{ network, asset: evm.tokens.usdc.address, maxAmountPerPayment: String(UNITS) }] });
const pay = wrapFetchWithPayment(fetch, client);

async function invoice(): Promise<{ x402_url: string; receive_address: string }> {
  const created = await fetch(`${listener.url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chain: 'base', amount_usd: 1 }) });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  return (await created.json()) as { x402_url: string; receive_address: string };
}

try {
  progress(`the 402 answer, ${QUOTES} times…`);
  const quoted = await invoice();
  const quotes: number[] = [];
  for (let i = 0; i < QUOTES; i++) {
    const [ms, answer] = await timed(() => fetch(quoted.x402_url));
    if (answer.status !== 402) throw new Error(`402 expected, got ${answer.status}`);
    await answer.arrayBuffer();
    quotes.push(ms);
  }

  progress(`${ROUNDS} rounds: a plain transfer by the sandbox wallet, then an x402 payment of another invoice…`);
  const transfers: number[] = [];
  const payments: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const plain = await invoice();
    transfers.push((await timed(() => evm.tokens.usdc.transfer(plain.receive_address, UNITS, 0)))[0]);
    const viaX402 = await invoice();
    const [ms, answer] = await timed(() => pay(viaX402.x402_url));
    if (answer.status !== 200) throw new Error(`x402 payment: ${answer.status} ${await answer.text()}`);
    await answer.arrayBuffer();
    payments.push(ms);
  }
  const quote50 = percentile(sorted(quotes), 50);
  const transfer50 = percentile(sorted(transfers), 50);
  const payment50 = percentile(sorted(payments), 50);
  const ratio = round(payment50 / transfer50);
  report(
    [
      `402 answer:        p50 ${round(quote50)} ms, p99 ${round(percentile(sorted(quotes), 99))} ms (${QUOTES} requests; target < 5 ms p50)`,
      `plain transfer:    p50 ${round(transfer50)} ms, p99 ${round(percentile(sorted(transfers), 99))} ms (sent by the sandbox wallet, mined)`,
      `x402 payment:      p50 ${round(payment50)} ms, p99 ${round(percentile(sorted(payments), 99))} ms (402, sign, verify, settle, mined; ${ROUNDS} rounds)`,
      `x402 / transfer:   ${ratio} at p50 (target <= 1.5)`,
    ],
    {
      bench: 'x402',
      value: round(payment50),
      unit: 'ms',
      baseline: round(transfer50),
      ratio,
      target: { x402_vs_transfer_ratio: 1.5, quote_p50_ms: 5 },
      x402_vs_transfer_ratio: ratio,
      quote_p50_ms: round(quote50),
      met: ratio <= 1.5 && quote50 < 5,
    },
  );
} finally {
  await listener.stop({ graceMs: 0 });
  await evm.close();
}
