import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as bitcoin from 'bitcoinjs-lib';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { createBitcoinCoreSource } from '../../../core/btc/bitcoin-core-source.ts';
import { ChainSourceError, type ChainSource } from '../../../core/btc/chain-source.ts';

const regtest = bitcoin.networks.regtest;
const payeeScript = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 7), network: regtest }).output!;
const payeeAddress = bitcoin.address.fromOutputScript(payeeScript, regtest);

let server: LocalChainServer;
let chain: LocalBtcChain;

before(async () => {
  chain = new LocalBtcChain();
  server = await startLocalChainServer(chain);
});
after(() => server.close());

const sources: [string, () => ChainSource][] = [
  ['esplora', () => createEsploraSource({ baseUrl: server.esploraUrl, fetch })],
  ['bitcoin-core', () => createBitcoinCoreSource({ url: server.rpcUrl, fetch })],
];

test('the local chain serves real blocks: raw bytes parse, merkle roots and proof of work check out', async () => {
  const txid = chain.pay([{ address: payeeAddress, value: 12_345n }]);
  const [mined] = chain.mine(1);
  const raw = new Uint8Array(await (await fetch(`${server.esploraUrl}/block/${mined.hash}/raw`)).arrayBuffer());
  const block = bitcoin.Block.fromBuffer(raw);
  assert.equal(block.getId(), mined.hash);
  assert.ok(block.checkTxRoots());
  assert.ok(block.checkProofOfWork());
  const paid = block.transactions!.find((tx) => tx.getId() === txid)!;
  assert.equal(paid.outs[0].value, 12_345n);
  assert.deepEqual(Buffer.from(paid.outs[0].script), Buffer.from(payeeScript));
  const status = await (await fetch(`${server.esploraUrl}/tx/${txid}/status`)).json();
  assert.deepEqual(status, { confirmed: true, block_height: mined.height, block_hash: mined.hash, block_time: mined.time });
  const history = (await (await fetch(`${server.esploraUrl}/address/${payeeAddress}/txs`)).json()) as { txid: string }[];
  assert.ok(history.some((tx) => tx.txid === txid));
});

for (const [kind, make] of sources) {
  describe(`${kind} source against the local chain`, () => {
    test('tip, block hashes and parsed blocks match the chain', async () => {
      const source = make();
      const txid = chain.pay([{ address: payeeAddress, value: 50_000n }]);
      const [mined] = chain.mine(1);
      assert.equal(await source.tipHeight(), mined.height);
      assert.equal(await source.blockHash(mined.height), mined.hash);
      assert.equal(await source.blockHash(mined.height + 1), null);
      const block = await source.block(mined.hash, mined.height);
      assert.equal(block.prevHash, chain.blockAt(mined.height - 1)!.hash);
      assert.deepEqual(block.txs.map((t) => t.txid), mined.txids);
      const paid = block.txs.find((t) => t.txid === txid)!;
      assert.deepEqual(paid.outputs[0], { script: Buffer.from(payeeScript).toString('hex'), value: 50_000n });
    });

    test('mempool txids and transactions; a txid that left the mempool is omitted', async () => {
      const source = make();
      const txid = chain.pay([{ address: payeeAddress, value: 777n }]);
      assert.ok((await source.mempoolTxids()).includes(txid));
      const gone = 'ab'.repeat(32);
      const txs = await source.transactions([txid, gone]);
      assert.deepEqual(txs.map((t) => t.txid), [txid]);
      assert.equal(txs[0].outputs[0].value, 777n);
      chain.mine(1);
    });

    test('an unreachable backend raises ChainSourceError', async () => {
      const source = make();
      server.setDown(true);
      try {
        await assert.rejects(source.tipHeight(), ChainSourceError);
      } finally {
        server.setDown(false);
      }
      assert.equal(await source.tipHeight(), chain.tip.height);
    });
  });
}

test('bitcoin-core source with wrong credentials fails with a hint and without the password', async () => {
  const url = new URL(server.rpcUrl);
  url.password = 'wrong-secret';
  const source = createBitcoinCoreSource({ url: url.toString(), fetch });
  const error = await source.tipHeight().then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainSourceError);
  assert.match(error.message, /401/);
  assert.doesNotMatch(error.message, /wrong-secret/);
});
