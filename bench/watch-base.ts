/**
 * Base watcher: RPC calls and processing time per block with 100 and with 11,000 open invoices
 * (10,000 xpub-mode, 1,000 fixed-address) on a local anvil node, each block carrying 500 USDC
 * Transfers (one transferMany transaction). Run: npx tsx bench/watch-base.ts
 */
import { Wallet } from 'ethers';
import { manualClock } from '../core/clock.ts';
import { createRpcSource, type RpcSource } from '../core/evm/rpc.ts';
import { createEvmWatcher } from '../core/evm/watcher.ts';
import { merchantEvmScope } from '../core/evm/evm-transfer.repository.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, MERCHANT, evmServices, startEvmTestChain } from '../test/helpers/evm-chain.ts';
import { startRpcProxy } from '../test/helpers/rpc-proxy.ts';
import { silentLogger } from '../core/log.ts';
import { createMemoryStatusFeed } from '../core/invoices/status-feed.ts';

const BLOCKS = 5;
const TRANSFERS_PER_BLOCK = 500;
const BLOCK_TIME_MS = 2_000;

const progress = (msg: string) => process.stderr.write(`${msg}\n`);
const chain = await startEvmTestChain();
const proxy = await startRpcProxy(chain.anvil.url);
const config = chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: `${chain.anvil.url},${proxy.url}`, BASE_CONFIRMATIONS: '1' });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const sources: RpcSource[] = [createRpcSource(chain.anvil.url, { fetch, sleep }), createRpcSource(proxy.url, { fetch, sleep })];
const clock = manualClock(Date.now());
const { create } = evmServices(chain, config, { clock });
const watcher = createEvmWatcher({ db: chain.database.db, feed: createMemoryStatusFeed(), clock, logger: silentLogger, scope: merchantEvmScope(MERCHANT, config.chain), base: config, sources });
const xpubAddresses: string[] = [];
const fixedAmounts: bigint[] = [];
let xpubCount = 0;
let fixedCount = 0;

async function openInvoices(xpub: number, fixed: number) {
  for (; xpubCount < xpub; xpubCount++) {
    const r = (await create({ amount_usd: 1 })) as { receive_address: string };
    xpubAddresses.push(r.receive_address);
    if (xpubCount % 1000 === 999) progress(`  ${xpubCount + 1} xpub invoices`);
  }
  for (; fixedCount < fixed; fixedCount++) {
    const r = (await create({ amount_usd: (200 + fixedCount) / 100, asset: 'usdt' })) as { amount_usdc_units: number };
    fixedAmounts.push(BigInt(r.amount_usdc_units));
  }
}

/** One block with 500 USDC transfers: half to open invoice addresses, half to strangers. */
async function mineBusyBlock(block: number) {
  const to: string[] = [];
  const value: bigint[] = [];
  for (let i = 0; i < TRANSFERS_PER_BLOCK; i++) {
    if (i % 2 === 0) {
      to.push(xpubAddresses[(block * TRANSFERS_PER_BLOCK + i) % xpubAddresses.length]);
      value.push(100_000n);
    } else {
      to.push(Wallet.createRandom().address);
      value.push(1n);
    }
  }
  await chain.usdc.transferMany(to, value);
}

async function measure(label: string) {
  await watcher.tick();
  const samples: { calls: number; ms: number }[] = [];
  for (let b = 0; b < BLOCKS; b++) {
    await mineBusyBlock(b);
    const before = sources.reduce((n, s) => n + s.requests, 0);
    const started = performance.now();
    await watcher.tick();
    samples.push({ calls: sources.reduce((n, s) => n + s.requests, 0) - before, ms: performance.now() - started });
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = { label, open: xpubCount + fixedCount, calls: median(samples.map((s) => s.calls)), ms: median(samples.map((s) => s.ms)) };
  progress(`  ${label}: ${JSON.stringify(samples)}`);
  return result;
}

try {
  progress('opening 100 invoices');
  await openInvoices(90, 10);
  const small = await measure('100 open');
  progress('opening 11,000 invoices (10,000 xpub + 1,000 fixed-address)');
  await openInvoices(10_000, 1_000);
  const large = await measure('11,000 open');
  const chunks = Math.ceil((xpubCount + 1) / 1_000);
  console.log(`Base watcher, ${TRANSFERS_PER_BLOCK} transfers per block, median of ${BLOCKS} blocks`);
  console.log(`open invoices      RPC calls/block   processing ms/block`);
  for (const r of [small, large]) console.log(`${String(r.open).padEnd(18)} ${String(r.calls).padEnd(17)} ${r.ms.toFixed(0)}`);
  console.log(`eth_getLogs chunks at 11,000 open: ${chunks} (1,000 addresses each); target: calls <= baseline + chunks - 1, time < ${BLOCK_TIME_MS} ms`);
  console.log(
    JSON.stringify({
      bench: 'watch-base',
      value: large.ms,
      unit: 'ms/block',
      baseline: small.ms,
      ratio: Number((large.ms / small.ms).toFixed(2)),
      target: BLOCK_TIME_MS,
      calls_per_block: large.calls,
      calls_per_block_baseline: small.calls,
      calls_target: small.calls + chunks - 1,
      open_invoices: large.open,
      open_invoices_baseline: small.open,
    }),
  );
} finally {
  await proxy.close();
  await chain.close();
}
