import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEvmConfig } from '../../../core/evm/evm-config.ts';
import { createRpcSource } from '../../../core/evm/rpc.ts';
import { ACCOUNT_XPUB, evmSpecOf, evmServices, settingsFor, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';

/**
 * The finality rule on a real anvil, which reports as `finalized` the block 64 behind its head: a
 * payment with its confirmations still waits for its block to be finalized; a source that does not
 * answer the tag leaves the count alone to decide, and the status says so.
 */
const TEST_TIMEOUT_MS = 90_000;
type Call = { id: number; params?: unknown[] };
const CONFIRMATIONS = '2';

async function withPolygon(fn: (chain: EvmTestChain) => Promise<void>) {
  const chain = await startEvmTestChain(undefined, 'polygon');
  try {
    await fn(chain);
  } finally {
    await chain.close();
  }
}

async function headOf(chain: EvmTestChain): Promise<number> {
  return Number(await chain.source().call<string>('eth_blockNumber', []));
}

test('Ethereum and Polygon settle by the finalized tag by default, Base by the count; a bad value is reported', () => {
  const problems: string[] = [];
  const env = (chain: 'base' | 'eth' | 'polygon', extra: Record<string, string> = {}) =>
    settingsFor(chain, { MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_RPC_URL: 'http://127.0.0.1:1', BASE_MIN_SOURCES: '1', ...extra });
  assert.equal(parseEvmConfig(evmSpecOf('base'), env('base'), problems)?.finality, 'count');
  assert.equal(parseEvmConfig(evmSpecOf('eth'), env('eth'), problems)?.finality, 'tag');
  assert.equal(parseEvmConfig(evmSpecOf('polygon'), env('polygon'), problems)?.finality, 'tag');
  assert.equal(parseEvmConfig(evmSpecOf('polygon'), env('polygon', { BASE_FINALITY: 'count' }), problems)?.finality, 'count');
  assert.deepEqual(problems, []);
  assert.equal(parseEvmConfig(evmSpecOf('eth'), env('eth', { BASE_FINALITY: 'safe' }), problems), null);
  assert.deepEqual(problems, ['ETH_FINALITY must be tag or count']);
});

test('a payment with its confirmations stays pending until its block is finalized, then confirms', { timeout: TEST_TIMEOUT_MS }, () =>
  withPolygon(async (chain) => {
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_CONFIRMATIONS: CONFIRMATIONS, BASE_FINALITY: 'tag' }));
    const created = (await create({ amount_usd: 5 })) as { invoice_id: string; receive_address: string; amount_usdc_units: number };
    await chain.usdc.transfer(created.receive_address, BigInt(created.amount_usdc_units));
    const paidBlock = await headOf(chain);
    await chain.anvil.mine(2);
    await watcher.tick();
    let status = watcher.status();
    assert.equal(status.finality, 'tag');
    assert.ok(status.finalized_block_height! < paidBlock, `finalized ${status.finalized_block_height} is below the payment's block ${paidBlock}`);
    assert.equal((await invoice(created.invoice_id)).status, 'pending', 'three confirmations of two, but not finalized');

    // One block short of the boundary: the node's finalized block is the one before the payment's.
    await chain.anvil.mine(paidBlock + 64 - 1 - (await headOf(chain)));
    await watcher.tick();
    status = watcher.status();
    assert.equal(status.finalized_block_height, paidBlock - 1);
    assert.equal((await invoice(created.invoice_id)).status, 'pending', `finalized ${status.finalized_block_height}, payment in ${paidBlock}`);

    await chain.anvil.mine(1);
    await watcher.tick();
    assert.equal(watcher.status().finalized_block_height, paidBlock);
    assert.equal((await invoice(created.invoice_id)).status, 'confirmed', 'its block is finalized');
  }));

test('a source that refuses the finalized tag: the count alone settles, and the status says so', { timeout: TEST_TIMEOUT_MS }, () =>
  withPolygon(async (chain) => {
    let refused = 0;
    // A node without the tag, in the real JSON-RPC shape: alone or in a batch, that call is answered with an error object.
    const refusing: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body)) as Call | Call[];
      const calls = Array.isArray(body) ? body : [body];
      const asksTag = (call: Call) => call.params?.[0] === 'finalized';
      refused += calls.filter(asksTag).length;
      const passed = calls.filter((call) => !asksTag(call));
      const answered = passed.length ? ((await (await fetch(input, { ...init, body: JSON.stringify(passed) })).json()) as Array<{ id: number }>) : [];
      const answers = calls.map((call) => (asksTag(call) ? { jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'unknown block tag' } } : answered.find((a) => a.id === call.id)));
      return Response.json(Array.isArray(body) ? answers : answers[0]);
    };
    const source = createRpcSource(chain.anvil.url, { fetch: refusing, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), attempts: 2, backoffMs: 10 });
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_CONFIRMATIONS: CONFIRMATIONS, BASE_FINALITY: 'tag' }), {
      sources: [source],
    });
    const created = (await create({ amount_usd: 5 })) as { invoice_id: string; receive_address: string; amount_usdc_units: number };
    await chain.usdc.transfer(created.receive_address, BigInt(created.amount_usdc_units));
    await watcher.tick();
    assert.equal((await invoice(created.invoice_id)).status, 'pending', 'one confirmation of two');
    assert.equal(watcher.status().last_error, null, 'the refused tag does not fail the pass');
    await chain.anvil.mine(1);
    await watcher.tick();
    assert.ok(refused >= 2, 'the watcher asked for the finalized block on each pass');
    const status = watcher.status();
    assert.equal(status.finality, 'count (source does not answer finalized)');
    assert.equal(status.finalized_block_height, null);
    assert.equal((await invoice(created.invoice_id)).status, 'confirmed', 'two confirmations by the count');
  }));
