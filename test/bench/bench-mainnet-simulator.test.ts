// The mainnet-shape benchmark's simulator: its chain parses as real blocks and transactions, and its
// rate limit answers like a public service (429 after the burst, Retry-After in three forms) and
// counts requests sent inside a Retry-After window.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as bitcoin from 'bitcoinjs-lib';
import { WebSocket } from 'ws';
import { MainnetShapedChain } from '../../bench/support/mainnet-chain.ts';
import { startMainnetSimulator, type MainnetSimulator } from '../../bench/support/mainnet-simulator.ts';
import { GENESIS_CHECKPOINT, HeaderChain, headerRules } from '../../core/btc/header-chain.ts';
import { parseRawBlock } from '../../core/btc/raw-block.ts';
import { createEsploraSource } from '../../core/btc/esplora-source.ts';

let chain: MainnetShapedChain;
let simulator: MainnetSimulator;

before(async () => {
  chain = new MainnetShapedChain({ mempoolSize: 2_000, blockBytes: 200_000 });
  // A slow bucket, so that refills during the test (on a loaded machine) cannot hide the limit.
  simulator = await startMainnetSimulator(chain, { ratePerSecond: 0.5, burst: 5 });
});
after(() => simulator.close());

test('blocks and transactions are real serialisations: the watcher parser and bitcoinjs agree on them', async () => {
  const payee = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 3), network: bitcoin.networks.regtest }).address!;
  const txid = chain.pay(payee, 50_000n);
  const block = chain.mine();
  const parsed = parseRawBlock(Buffer.from(block.raw), block.hash, block.height);
  assert.deepEqual(parsed.txs.map((tx) => tx.txid), block.txids);
  assert.equal(parsed.txs[1].txid, txid, 'a broadcast transaction is mined first');
  const full = bitcoin.Block.fromBuffer(Buffer.from(block.raw));
  assert.ok(full.checkTxRoots(), 'merkle root and witness commitment check out');
  assert.ok(Math.abs(block.raw.length - 200_000) < 10_000, `block of ${block.raw.length} bytes`);
  const mean = block.raw.length / block.txids.length;
  assert.ok(mean > 200 && mean < 800, `mean transaction ${mean} bytes`);
  assert.equal(chain.mempoolCount, 2_000, 'the mempool is topped back up after the block');
  const source = createEsploraSource({ baseUrl: simulator.esploraUrl, fetch });
  assert.equal(await source.tipHeight(), block.height);
});

test("the chain's headers pass regtest's consensus rules from its genesis block, as the listener checks them", () => {
  chain.mine();
  const headers = new HeaderChain(headerRules.regtest, GENESIS_CHECKPOINT, []);
  for (let height = 0; height <= chain.tip.height; height++) {
    const block = chain.blockAt(height)!;
    assert.equal(headers.add(Buffer.from(block.raw.subarray(0, 80)), Date.now()).kind, 'extended', `block ${height}`);
  }
  assert.equal(headers.tip!.hash, chain.tip.hash);
});

test('the WebSocket serves the chain too: want blocks answers the blocks there are (from the genesis block)', async () => {
  const socket = new WebSocket(`${simulator.esploraUrl.replace(/^http/, 'ws')}/v1/ws`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const reply = new Promise<{ blocks: { height: number }[] }>((resolve) => socket.once('message', (data) => resolve(JSON.parse(data.toString()))));
  socket.send(JSON.stringify({ action: 'want', data: ['blocks'] }));
  const { blocks } = await reply;
  socket.close();
  assert.deepEqual(
    blocks.map((b) => b.height),
    Array.from({ length: chain.tip.height + 1 }, (_, i) => i),
  );
});

test('past the burst: 429 with Retry-After as seconds, as an HTTP-date, or absent; requests inside the window are counted', async () => {
  simulator.resetStats();
  const answers = await Promise.all(Array.from({ length: 26 }, () => fetch(`${simulator.esploraUrl}/blocks/tip/height`)));
  const limited = answers.filter((res) => res.status === 429);
  assert.ok(limited.length >= 3, `${limited.length} answered 429`);
  const forms = limited.slice(0, 3).map((res) => res.headers.get('retry-after'));
  assert.match(forms[0]!, /^\d+$/);
  assert.ok(!Number.isNaN(Date.parse(forms[1]!)) && /GMT$/.test(forms[1]!), `HTTP-date: ${forms[1]}`);
  assert.equal(forms[2], null);
  const stats = simulator.stats();
  assert.equal(stats.requests, 26);
  assert.equal(stats.tooManyRequests, limited.length);
  // Every 429 after the first came while the first one's window was open.
  assert.ok(stats.insideRetryAfter >= limited.length - 1, `${stats.insideRetryAfter} inside the window`);
  assert.equal(stats.byRoute.get('GET /api/blocks/tip/height')?.requests, 26);
});
