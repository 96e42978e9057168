import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { ACCOUNT_PATH } from '../../core/evm/keys.ts';
import { manualClock } from '../../core/clock.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { startLocalEvm } from '../../sandbox/local-evm.ts';
import { evmChainNames, type EvmChainName } from '../../shared/index.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { postJson } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

/** Longer than the shared RPC source's reuse window (1 s). */
const PAST_REUSE_WINDOW_MS = 1_001;


/**
 * A real Cloud leader with `merchants` Base xpub merchants against the local anvil node, its RPC
 * calls counted by method through the injected fetch. The clock only moves when the test moves it
 * (see cloud-chain-watch.test.ts): the calls counted are those one new block causes.
 */
async function measure(chain: EvmChainName, merchants: number): Promise<Record<string, number>> {
  const evm = await startLocalEvm({ chains: defaultChains, chain });
  const clock = manualClock(Date.now());
  const calls = new Map<string, number>();
  const countingFetch: typeof fetch = (input, init) => {
    const method = (JSON.parse(String(init?.body)) as { method: string }).method;
    calls.set(method, (calls.get(method) ?? 0) + 1);
    return fetch(input, init);
  };
  let cloud: RunningCloud | undefined;
  try {
    const { MERCHANT_EVM_XPUB: _throwaway, MERCHANT_EVM_ADDRESS: _alsoThrowaway, ...baseEnv } = evm.env;
    cloud = await startTestCloud({
      env: { ...baseEnv, CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' },
      deps: { clock, fetch: countingFetch, chainWatch: { tuning: { evm: { pollIntervalMs: 20 } }, refreshMs: 20 } },
    });
    const { db } = cloud.database;
    const invoices: { invoice_id: string; receive_address: string; amount_usdc_units: number; key: Record<string, string> }[] = [];
    for (let i = 0; i < merchants; i++) {
      const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
      const m = await signupMerchant(cloud.url, { receive_methods: [{ chain, xpub }] });
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { chain, amount_usd: 2 }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(created.status, 201, created.text);
      invoices.push({ ...created.json, key: { 'X-Service-Api-Key': m.api_key } });
    }
    const head = async () => Number(await evm.anvil.rpc<string>('eth_blockNumber'));
    const watchers = async () => ({ tip: await head(), watchers: cloud!.watcherStates() });
    const until = (what: string, check: () => Promise<boolean>) => waitForWatcher(what, check, Boolean, { watcher: watchers, timeoutMs: 20_000 });
    // One watcher for every merchant: its progress is one row per range end, under its own key.
    const allAt = async (height: number) =>
      (await db.selectFrom('base_blocks').select('merchant_id').distinct().where('chain', '=', chain).where('block_number', '=', height).execute()).map((r) => r.merchant_id).join() ===
      `watch:${chain}:${evm.anvil.chainId}`;
    const startHead = await head();
    await until('every merchant scanned to the head', () => allAt(startHead));
    await new Promise((r) => setTimeout(r, 200));

    calls.clear();
    const [first] = invoices;
    await evm.tokens.usdc.transfer(first.receive_address, BigInt(first.amount_usdc_units), 0);
    clock.advance(PAST_REUSE_WINDOW_MS);
    const paidHead = await head();
    await until('every merchant scanned the payment block', () => allAt(paidHead));
    await until('the payment is recorded for its merchant', async () =>
      (await db.selectFrom('base_transfers').select('invoice_id').where('to_address', '=', first.receive_address).execute()).length === 1,
    );
    await new Promise((r) => setTimeout(r, 200));
    const counted = Object.fromEntries(calls);

    // The second confirmation (BASE_CONFIRMATIONS=2) confirms the paid invoice, and only it.
    await evm.anvil.mine(1);
    clock.advance(PAST_REUSE_WINDOW_MS);
    const status = async (invoice: (typeof invoices)[number]) =>
      (await getJson(`${cloud!.url}/api/v1/invoice/${invoice.invoice_id}`, invoice.key)).json.status as string;
    await until('the paid invoice reads confirmed', async () => (await status(first)) === 'confirmed');
    for (const other of invoices.slice(1)) assert.equal(await status(other), 'pending');
    const confirmed = await db.selectFrom('events').select('payload').where('type', '=', 'invoice.confirmed').execute();
    assert.deepEqual(confirmed.map((e) => JSON.parse(e.payload).invoice_id), [first.invoice_id]);
    return counted;
  } finally {
    await cloud?.stop();
    await evm.close();
  }
}

for (const chain of evmChainNames) describe(`Cloud watching on ${chain}: one watcher for every merchant`, { timeout: 90_000 }, () => {
  it('1 vs 4 merchants: one new block costs one eth_blockNumber and the same headers; one eth_getLogs for all merchants; the paid xpub invoice confirms', async () => {
    const one = await measure(chain, 1);
    const four = await measure(chain, 4);
    console.log(`${chain} rpc calls per new block`, JSON.stringify({ one, four }));
    for (const [name, counts] of [
      ['1 merchant', one],
      ['4 merchants', four],
    ] as const) {
      assert.equal(counts.eth_blockNumber, 1, `${name}: ${JSON.stringify(counts)}`);
      assert.equal(counts.eth_getLogs, 1, `${name}: one call filtered by every merchant's addresses`);
      // The last scanned block (reorg check) and the new one, each once.
      assert.ok(counts.eth_getBlockByNumber <= 2, `${name}: ${JSON.stringify(counts)}`);
    }
  });
});
