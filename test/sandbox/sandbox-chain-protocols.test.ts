// The sandbox chain speaks the protocols the listener reads on mainnet: the mempool.space WebSocket
// API (message shapes of mempool's backend/src/api/websocket-handler.ts) and the Esplora address
// routes (shapes and paging of Blockstream electrs' rest.rs), checked with a real `ws` client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as bitcoin from 'bitcoinjs-lib';
import { WebSocket } from 'ws';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../sandbox/local-chain-server.ts';

const regtest = bitcoin.networks.regtest;
const addressOf = (byte: number) => bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, byte), network: regtest }).address!;
const MAINNET_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

let chain: LocalBtcChain;
let server: LocalChainServer;

before(async () => {
  chain = new LocalBtcChain();
  server = await startLocalChainServer(chain, { maxTrackedAddresses: 3 });
});
after(() => server.close());

type Message = Record<string, unknown>;

/** A `ws` client that queues what the server pushes; `next` fails naming what did arrive. */
async function connect(url = server.websocketUrl) {
  const socket = new WebSocket(url);
  const queue: Message[] = [];
  const received: string[] = [];
  let wake: (() => void) | null = null;
  socket.on('message', (data) => {
    queue.push(JSON.parse(data.toString()) as Message);
    received.push(Object.keys(queue[queue.length - 1]).join('+'));
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    send: (message: unknown) => socket.send(JSON.stringify(message)),
    /** Waits until the server has handled everything sent before (it answers in order). */
    async settled() {
      socket.send(JSON.stringify({ action: 'ping' }));
      const reply = await this.next();
      assert.deepEqual(reply, { pong: true });
    },
    async next(): Promise<Message> {
      const deadline = Date.now() + 10_000;
      while (!queue.length) {
        if (Date.now() > deadline) throw new Error(`no WebSocket message arrived; received so far: [${received.join(', ')}]`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
      return queue.shift()!;
    },
    close: () => socket.close(),
  };
}

async function getJson(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.esploraUrl}${path}`);
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type') === 'application/json' ? JSON.parse(text) : text };
}

describe('mempool.space WebSocket API at /api/v1/ws', () => {
  test('want blocks: the recent blocks at once, then a block message for each new block', async () => {
    const client = await connect();
    client.send({ action: 'want', data: ['blocks'] });
    const first = await client.next();
    const blocks = first.blocks as { id: string; height: number; previousblockhash: string }[];
    assert.equal(blocks.length, 8);
    assert.equal(blocks[7].id, chain.tip.hash);
    assert.equal(blocks[7].previousblockhash, blocks[6].id);
    const [mined] = chain.mine(1);
    const pushed = (await client.next()).block as { id: string; height: number; tx_count: number; size: number; stale: boolean };
    assert.deepEqual([pushed.id, pushed.height, pushed.tx_count, pushed.size, pushed.stale], [mined.hash, mined.height, 1, mined.raw.length, false]);
    client.close();
  });

  test('track-addresses: a mempool transaction, then its confirmation in the block, in multi-address-transactions', async () => {
    const client = await connect();
    const payee = addressOf(1);
    client.send({ action: 'want', data: ['blocks'] });
    await client.next();
    client.send({ 'track-addresses': [payee, addressOf(2)] });
    await client.settled();
    const txid = chain.pay([{ address: payee, value: 21_000n }]);
    const seen = (await client.next())['multi-address-transactions'] as Record<string, { mempool: { txid: string; status: unknown; vout: { scriptpubkey_address?: string; value: number }[] }[]; confirmed: unknown[]; removed: unknown[] }>;
    assert.deepEqual(Object.keys(seen), [payee]);
    assert.deepEqual(seen[payee].mempool.map((tx) => tx.txid), [txid]);
    assert.deepEqual(seen[payee].mempool[0].status, { confirmed: false });
    assert.ok(seen[payee].mempool[0].vout.some((out) => out.scriptpubkey_address === payee && out.value === 21_000));
    assert.deepEqual([seen[payee].confirmed, seen[payee].removed], [[], []]);

    const [mined] = chain.mine(1);
    const blockMessage = await client.next();
    assert.equal((blockMessage.block as { id: string }).id, mined.hash, 'the block and the address update come in one message, as mempool sends them');
    const confirmed = (blockMessage['multi-address-transactions'] as Record<string, { mempool: unknown[]; confirmed: { txid: string; status: unknown }[] }>)[payee];
    assert.deepEqual(confirmed.mempool, []);
    assert.deepEqual(confirmed.confirmed.map((tx) => tx.txid), [txid]);
    assert.deepEqual(confirmed.confirmed[0].status, { confirmed: true, block_height: mined.height, block_hash: mined.hash, block_time: mined.time });
    client.close();
  });

  test('track-address (one address): address-transactions, then block-transactions', async () => {
    const client = await connect();
    const payee = addressOf(3);
    client.send({ 'track-address': payee });
    await client.settled();
    const txid = chain.pay([{ address: payee, value: 5_000n }]);
    const inMempool = await client.next();
    assert.deepEqual((inMempool['address-transactions'] as { txid: string }[]).map((tx) => tx.txid), [txid]);
    chain.mine(1);
    const inBlock = await client.next();
    assert.equal(inBlock.block, undefined, 'no block message without want blocks');
    assert.deepEqual((inBlock['block-transactions'] as { txid: string }[]).map((tx) => tx.txid), [txid]);
    client.close();
  });

  test('over the tracked-address limit: track-addresses-error, and nothing tracked', async () => {
    const client = await connect();
    client.send({ action: 'want', data: ['blocks'] });
    await client.next();
    const addresses = [4, 5, 6, 7].map(addressOf);
    client.send({ 'track-addresses': addresses });
    assert.deepEqual(await client.next(), {
      'track-addresses-error': 'too many addresses requested, this connection supports tracking a maximum of 3 addresses',
    });
    chain.pay([{ address: addresses[0], value: 5_000n }]);
    const [mined] = chain.mine(1);
    const next = await client.next();
    assert.deepEqual(Object.keys(next), ['block'], 'the payment to a once-requested address is not pushed');
    assert.equal((next.block as { id: string }).id, mined.hash);
    client.close();
  });

  test('ping answers pong; a refused or down socket fails the upgrade with 503, HTTP still answers', async () => {
    const client = await connect();
    client.send({ action: 'ping' });
    assert.deepEqual(await client.next(), { pong: true });
    client.close();
    server.refuseSockets(true);
    try {
      await assert.rejects(connect(), /Unexpected server response: 503/);
      assert.equal((await getJson('/blocks/tip/height')).status, 200);
    } finally {
      server.refuseSockets(false);
    }
    await assert.rejects(connect(server.websocketUrl.replace('/api/v1/ws', '/ws')), /Unexpected server response: 404/);
  });
});

describe('Esplora address routes', () => {
  const payee = addressOf(9);
  const confirmedTxids: string[] = [];
  const mempoolTxids: string[] = [];

  before(() => {
    // 30 confirmed over 3 blocks, then 55 in the mempool: more than one page of each.
    for (let block = 0; block < 3; block++) {
      for (let i = 0; i < 10; i++) confirmedTxids.push(chain.pay([{ address: payee, value: BigInt(1_000 + i) }]));
      chain.mine(1);
    }
    for (let i = 0; i < 55; i++) mempoolTxids.push(chain.pay([{ address: payee, value: 600n }]));
  });

  test('/txs/mempool: newest first, at most 50, in the shape of /tx/:txid', async () => {
    const { status, body } = await getJson(`/address/${payee}/txs/mempool`);
    assert.equal(status, 200);
    const txs = body as { txid: string }[];
    assert.deepEqual(txs.map((tx) => tx.txid), mempoolTxids.slice(-50).reverse());
    assert.deepEqual(txs[0], (await getJson(`/tx/${txs[0].txid}`)).body);
  });

  test('/txs/chain pages 25 at a time after the last txid seen, newest first', async () => {
    const newestFirst = [...confirmedTxids].reverse();
    const first = (await getJson(`/address/${payee}/txs/chain`)).body as { txid: string; status: { confirmed: boolean } }[];
    assert.deepEqual(first.map((tx) => tx.txid), newestFirst.slice(0, 25));
    assert.ok(first.every((tx) => tx.status.confirmed));
    const second = (await getJson(`/address/${payee}/txs/chain/${first[24].txid}`)).body as { txid: string }[];
    assert.deepEqual(second.map((tx) => tx.txid), newestFirst.slice(25));
    const past = (await getJson(`/address/${payee}/txs/chain/${newestFirst[29]}`)).body;
    assert.deepEqual(past, []);
    assert.deepEqual((await getJson(`/address/${payee}/txs/chain/${'ab'.repeat(32)}`)).body, [], 'an unknown last_seen gives an empty page, as electrs');
  });

  test('/txs: up to 50 mempool then the first 25 confirmed', async () => {
    const txs = (await getJson(`/address/${payee}/txs`)).body as { txid: string }[];
    assert.deepEqual(txs.map((tx) => tx.txid), [...mempoolTxids.slice(-50).reverse(), ...[...confirmedTxids].reverse().slice(0, 25)]);
  });

  test('a spend counts for the address spent from (matched by prevout)', async () => {
    const wallet = chain.wallet.address;
    const txid = chain.pay([{ address: addressOf(10), value: 700n }]);
    const txs = (await getJson(`/address/${wallet}/txs/mempool`)).body as { txid: string; vin: { prevout: { scriptpubkey_address: string } }[] }[];
    assert.equal(txs[0].txid, txid);
    assert.equal(txs[0].vin[0].prevout.scriptpubkey_address, wallet);
  });

  test('bad input: 400 for an invalid address or one of another network, 404 for unknown routes', async () => {
    assert.deepEqual(await getJson('/address/not-an-address/txs'), { status: 400, body: 'Invalid Bitcoin address' });
    assert.deepEqual(await getJson(`/address/${MAINNET_ADDRESS}/txs/mempool`), { status: 400, body: 'Address on invalid network' });
    assert.equal((await getJson(`/address/${payee}/txs/recent`)).status, 404);
    assert.equal((await getJson(`/address/${payee}/txs/mempool/${mempoolTxids[0]}`)).status, 404);
    assert.equal((await getJson(`/address/${payee}/txs/chain/${confirmedTxids[0]}/more`)).status, 404);
  });
});
