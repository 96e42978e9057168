import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as bitcoin from 'bitcoinjs-lib';
import { ChainSourceError } from '../../../core/btc/chain-source.ts';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { createSharedChainSource } from '../../../core/btc/shared-chain-source.ts';
import { manualClock } from '../../../core/clock.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../../sandbox/local-chain-server.ts';

const payee = { script: bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 9), network: bitcoin.networks.regtest }).output! };
const MAX_AGE_MS = 2_000;

let chain: LocalBtcChain;
let server: LocalChainServer;
before(async () => {
  chain = new LocalBtcChain();
  server = await startLocalChainServer(chain);
});
after(() => server.close());

function shared(options: { maxBlocks?: number } = {}) {
  const clock = manualClock();
  const source = createSharedChainSource(createEsploraSource({ baseUrl: server.esploraUrl, fetch }), { clock, maxAgeMs: MAX_AGE_MS, ...options });
  return { clock, source };
}

/** Requests on `route` that `fn` causes. */
async function requestsOn(route: string, fn: () => Promise<unknown>): Promise<number> {
  const before = server.requestsByRoute().get(route) ?? 0;
  await fn();
  return (server.requestsByRoute().get(route) ?? 0) - before;
}

describe('shared chain source (one Esplora URL, many watchers)', () => {
  test('concurrent and repeated reads within the window cost one request each; after it, one more', async () => {
    const { clock, source } = shared();
    chain.mine(1);
    const tip = 'GET /api/blocks/tip/height';
    assert.equal(await requestsOn(tip, () => Promise.all(Array.from({ length: 10 }, () => source.tipHeight()))), 1);
    assert.equal(await requestsOn(tip, () => source.tipHeight()), 0);
    clock.advance(MAX_AGE_MS);
    assert.equal(await requestsOn(tip, () => source.tipHeight()), 1);
  });

  test('a same-height reorg is seen once the window has passed; a new tip drops the height → hash answers at once', async () => {
    const { clock, source } = shared();
    chain.mine(2);
    const height = chain.tip.height;
    const old = chain.tip.hash;
    assert.equal(await source.tipHeight(), height);
    assert.equal(await source.blockHash(height), old);
    const [replacement] = chain.reorg(1, { blocks: 1 });
    assert.equal(await source.blockHash(height), old, 'reused within the window');
    clock.advance(MAX_AGE_MS);
    assert.equal(await source.blockHash(height), replacement.hash);

    // The hash is read after the tip, so it would outlive the tip's window were it not dropped.
    clock.advance(MAX_AGE_MS);
    await source.tipHeight();
    clock.advance(MAX_AGE_MS / 2);
    assert.equal(await source.blockHash(height), replacement.hash);
    chain.reorg(1, { blocks: 2 });
    clock.advance(MAX_AGE_MS / 2);
    assert.equal(await source.tipHeight(), height + 1);
    assert.equal(await source.blockHash(height), chain.blockAt(height)!.hash);
    assert.notEqual(chain.blockAt(height)!.hash, replacement.hash);
  });

  test('a new mempool list makes the next tip a fresh read (the left-the-mempool check compares a tip read after the list)', async () => {
    const { source } = shared();
    await source.tipHeight();
    const tip = 'GET /api/blocks/tip/height';
    assert.equal(await requestsOn(tip, () => source.tipHeight()), 0);
    await source.mempoolTxids();
    assert.equal(await requestsOn(tip, () => source.tipHeight()), 1);
    await source.mempoolTxids();
    assert.equal(await requestsOn(tip, () => source.tipHeight()), 0, 'the list was reused, so the tip may be too');
  });

  test('blocks are kept by hash up to the bound: the oldest is downloaded again', async () => {
    const { source } = shared({ maxBlocks: 2 });
    const blocks = chain.mine(3);
    const raw = 'GET /api/block/:hash/raw';
    const read = (i: number) => source.block(blocks[i].hash, blocks[i].height);
    assert.equal(await requestsOn(raw, () => Promise.all([read(0), read(0), read(1), read(2)])), 3);
    assert.equal(await requestsOn(raw, () => Promise.all([read(1), read(2)])), 0);
    assert.equal(await requestsOn(raw, () => read(0)), 1);
    assert.deepEqual((await read(0)).txs.map((t) => t.txid), blocks[0].txids);
  });

  test('transactions: each downloaded once; one that left the mempool is omitted and asked again next time', async () => {
    const { source } = shared();
    const kept = chain.pay([{ ...payee, value: 10_000n }]);
    const hex = 'GET /api/tx/:hash/hex';
    const gone = 'ab'.repeat(32);
    let found: string[] = [];
    assert.equal(await requestsOn(hex, async () => (found = (await source.transactions([kept, gone])).map((t) => t.txid))), 2);
    assert.deepEqual(found, [kept]);
    assert.equal(await requestsOn(hex, async () => (found = (await source.transactions([kept, gone])).map((t) => t.txid))), 1);
    assert.deepEqual(found, [kept]);
  });

  test('a backend failure is thrown to every caller, not remembered as an answer or as an absent transaction', async () => {
    const { source } = shared();
    const txid = chain.pay([{ ...payee, value: 11_000n }]);
    server.setDown(true);
    try {
      await assert.rejects(source.tipHeight(), ChainSourceError);
      await assert.rejects(source.transactions([txid]), ChainSourceError);
    } finally {
      server.setDown(false);
    }
    assert.equal(await source.tipHeight(), chain.tip.height);
    assert.deepEqual((await source.transactions([txid])).map((t) => t.txid), [txid]);
  });
});
