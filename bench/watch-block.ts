// Per-block cost of Bitcoin watching: a block of 4,000 transactions (10,000 outputs) processed with
// 1,000 and with 100,000 open invoices, through both chain sources. Run: npx tsx bench/watch-block.ts
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { createBitcoinCoreSource } from '../listener/btc/bitcoin-core-source.ts';
import type { ChainSource } from '../listener/btc/chain-source.ts';
import { createEsploraSource } from '../listener/btc/esplora-source.ts';
import { createBtcWatcher } from '../listener/btc/watcher.ts';
import { systemClock } from '../listener/clock.ts';
import { openDatabase } from '../listener/db/database.ts';
import { silentLogger } from '../listener/log.ts';
import { LocalBtcChain } from '../listener/sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../listener/sandbox/local-chain-server.ts';

const TXS = 4_000;
const PAID_INVOICES = 1_000;
const TARGET_MS = 1_000;
const regtest = bitcoin.networks.regtest;
const progress = (msg: string) => process.stderr.write(`${msg}\n`);
const randomAddress = () => bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: regtest }).address!;

interface Run {
  source: ChainSource['kind'];
  openInvoices: number;
  ms: number;
  requests: number;
  confirmed: number;
}

async function run(kind: ChainSource['kind'], openInvoices: number): Promise<Run> {
  progress(`[${kind}, ${openInvoices} open invoices] preparing database and chain…`);
  const database = await openDatabase('sqlite::memory:');
  // Watched scripts are what matters to the lookup; random key hashes stand in for derived addresses.
  const addresses = Array.from({ length: openInvoices }, randomAddress);
  const now = Date.now();
  for (let i = 0; i < openInvoices; i += 500) {
    await database.db
      .insertInto('invoices')
      .values(
        addresses.slice(i, i + 500).map((address, j) => ({
          invoice_id: `inv_${i + j}`,
          merchant_id: 'bench',
          chain: 'btc',
          asset: 'BTC',
          network: 'regtest',
          receive_address: address,
          child_index: i + j,
          derivation_path: null,
          key_id: 'bench',
          amount_sats: 10_000,
          amount_units: null,
          memo: null,
          status: 'pending',
          tx_hash: null,
          paid_at: null,
          expires_at: now + 3_600_000,
          created_at: now - openInvoices + i + j,
          updated_at: now - openInvoices + i + j,
        })),
      )
      .execute();
  }

  const chain = new LocalBtcChain();
  const server = await startLocalChainServer(chain);
  const source =
    kind === 'esplora' ? createEsploraSource({ baseUrl: server.esploraUrl, fetch }) : createBitcoinCoreSource({ url: server.rpcUrl, fetch });
  const watcher = createBtcWatcher({ db: database.db, merchantId: 'bench', keyId: 'bench', source, clock: systemClock, logger: silentLogger });
  await watcher.syncOnce(); // loads the watched set and the current tip

  progress(`[${kind}, ${openInvoices} open invoices] building a block of ${TXS} transactions…`);
  // Half the transactions have two payees and half one, plus change: 10,000 outputs in all;
  // the first 1,000 payees are open invoices, the rest strangers.
  let paid = 0;
  for (let t = 0; t < TXS; t++) {
    const payees = t % 2 === 0 ? 2 : 1;
    const outputs = Array.from({ length: payees }, () => ({
      address: paid < PAID_INVOICES ? addresses[paid++] : randomAddress(),
      value: 10_000n,
    }));
    chain.pay(outputs);
  }
  const [block] = chain.mine(1);
  const outputs = block.block.transactions!.reduce((sum, tx) => sum + tx.outs.length, 0);

  const before = server.requestCount;
  const started = performance.now();
  await watcher.syncOnce();
  const ms = performance.now() - started;
  const requests = server.requestCount - before;
  const confirmed = await database.db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'confirmed')
    .executeTakeFirstOrThrow();
  progress(`[${kind}, ${openInvoices} open invoices] block of ${block.txids.length} txs / ${outputs} outputs: ${ms.toFixed(0)} ms, ${requests} requests`);
  await server.close();
  await database.close();
  return { source: kind, openInvoices, ms, requests, confirmed: Number(confirmed.n) };
}

const runs: Run[] = [];
const kinds = process.argv.includes('--quick') ? (['esplora'] as const) : (['esplora', 'bitcoin-core'] as const);
for (const kind of kinds) {
  for (const open of [1_000, 100_000]) runs.push(await run(kind, open));
}
const rssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);

console.log(`\nwatch-block: one block of ${TXS} transactions, ${PAID_INVOICES} of them paying open invoices (1 confirmation each)\n`);
console.log('source        open invoices   time (ms)   source requests   invoices confirmed');
for (const r of runs) {
  console.log(`${r.source.padEnd(14)}${String(r.openInvoices).padStart(13)}${r.ms.toFixed(0).padStart(12)}${String(r.requests).padStart(18)}${String(r.confirmed).padStart(21)}`);
}
console.log(`\nprocess RSS after watching 100,000 addresses: ${rssMb} MB (target < 200 MB)`);
const at = (source: string, open: number) => runs.find((r) => r.source === source && r.openInvoices === open)!;
const value = at('esplora', 100_000).ms;
const baseline = at('esplora', 1_000).ms;
console.log(`esplora, 100,000 vs 1,000 open invoices: ${(value / baseline).toFixed(2)}x the time, requests ${at('esplora', 100_000).requests} vs ${at('esplora', 1_000).requests}`);
console.log(
  JSON.stringify({
    bench: 'watch-block',
    value: Math.round(value),
    unit: 'ms',
    baseline: Math.round(baseline),
    ratio: Number((value / baseline).toFixed(2)),
    target: TARGET_MS,
    requests_1k_esplora: at('esplora', 1_000).requests,
    requests_100k_esplora: at('esplora', 100_000).requests,
    requests_1k_core: at('bitcoin-core', 1_000).requests,
    requests_100k_core: at('bitcoin-core', 100_000).requests,
    core_ms_100k: Math.round(at('bitcoin-core', 100_000).ms),
    rss_mb: rssMb,
  }),
);
