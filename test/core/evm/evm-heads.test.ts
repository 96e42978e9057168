import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { createHeadSubscription } from '../../../core/evm/new-heads.ts';
import { nextPassInMs, type PaceInput } from '../../../core/evm/poll-pace.ts';
import { createRpcSource } from '../../../core/evm/rpc.ts';
import { ACCOUNT_XPUB, evmServices, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

/** Longer than any test here: a pass that comes sooner was started by a head, not by the poll. */
const NEVER_MS = 10 * 60_000;

const pace = (input: Partial<PaceInput>) =>
  nextPassInMs({ now: 100_000, headSeenAt: 100_000, blockTimeMs: 12_000, pollIntervalMs: 2_000, headsCheckMs: 60_000, headsLive: false, retryPending: false, ...input });

test('pace: no pass before the next block is due, then the old pace until it comes', () => {
  // Ethereum: a head just seen is followed by the next one 12 s later, never sooner.
  assert.equal(pace({}), 12_000);
  assert.equal(pace({ now: 105_000 }), 7_000);
  // The block is due (or late: a missed slot): ask every 2 s, as before, until it comes.
  assert.equal(pace({ now: 111_000 }), 2_000);
  assert.equal(pace({ now: 130_000 }), 2_000);
  // Base and Polygon: blocks every 2 s, the same pace as before.
  assert.equal(pace({ blockTimeMs: 2_000 }), 2_000);
  // A node that mines on demand (block time 0), or no head read yet: the old pace.
  assert.equal(pace({ blockTimeMs: 0 }), 2_000);
  assert.equal(pace({ headSeenAt: null }), 2_000);
  // A live subscription announces each block: the head is only checked now and then.
  assert.equal(pace({ headsLive: true }), 60_000);
  // A failure, or a transfer waiting for its second source, is retried at the old pace whatever else.
  assert.equal(pace({ headsLive: true, retryPending: true }), 2_000);
  assert.equal(pace({ retryPending: true }), 2_000);
});

async function withChain(fn: (chain: EvmTestChain) => Promise<void>) {
  const chain = await startEvmTestChain();
  try {
    await fn(chain);
  } finally {
    await chain.close();
  }
}

const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws');

test('a block anvil announces over its WebSocket (newHeads) starts a pass: a payment is seen with polling off', { timeout: 120_000 }, () =>
  withChain(async (chain) => {
    const heads = createHeadSubscription({ url: wsUrl(chain.anvil.url), clock: systemClock, logger: silentLogger });
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), {
      pace: { heads, pollIntervalMs: NEVER_MS, headsCheckMs: NEVER_MS, blockTimeMs: 0 },
    });
    watcher.start();
    try {
      await waitForWatcher('the head subscription to go live and a first pass', () => watcher.status(), (s) => s.heads_live && s.last_tick_at !== null, { watcher: () => watcher.status() });
      const created = (await create({ amount_usd: 3 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 3_000_000n);
      await waitForWatcher('the payment to be seen', () => invoice(created.invoice_id), (i) => i.status === 'pending', { watcher: () => watcher.status() });
      // Two more announced blocks confirm it (3 confirmations), still with no poll.
      await chain.anvil.mine(2);
      await waitForWatcher('the payment to confirm', () => invoice(created.invoice_id), (i) => i.status === 'confirmed', { watcher: () => watcher.status() });
    } finally {
      await watcher.stop();
    }
  }),
);

/**
 * A WebSocket relay in front of anvil's that can be cut (every connection dropped, new ones refused)
 * and restored, or muted: the connections open now stay up and answer pings but pass nothing more
 * from the node, as a provider that lost the subscription behind its load balancer.
 */
async function cuttableRelay(target: string) {
  let up = true;
  let connections = 0;
  const muted = new Set<WebSocket>();
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: () => up });
  server.on('connection', (client) => {
    connections++;
    const node = new WebSocket(target);
    const pending: WebSocket.RawData[] = [];
    node.on('open', () => pending.splice(0).forEach((data) => node.send(data.toString())));
    client.on('message', (data) => (node.readyState === WebSocket.OPEN ? node.send(data.toString()) : pending.push(data)));
    node.on('message', (data) => muted.has(client) || client.send(data.toString()));
    client.on('close', () => node.terminate());
    node.on('close', () => client.terminate());
    node.on('error', () => client.terminate());
  });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      up = false;
      for (const client of server.clients) client.terminate();
    },
    restore() {
      up = true;
    },
    mute() {
      for (const client of server.clients) muted.add(client);
    },
    get connections() {
      return connections;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test('a dropped head socket falls back to polling, and the watcher follows heads again once it reconnects', { timeout: 180_000 }, () =>
  withChain(async (chain) => {
    const relay = await cuttableRelay(wsUrl(chain.anvil.url));
    const heads = createHeadSubscription({ url: relay.url, clock: systemClock, logger: silentLogger, maxBackoffMs: 500 });
    const POLL_MS = 300;
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), {
      pace: { heads, pollIntervalMs: POLL_MS, headsCheckMs: NEVER_MS, blockTimeMs: 0 },
    });
    watcher.start();
    try {
      await waitForWatcher('the head subscription to go live', () => watcher.status(), (s) => s.heads_live && s.last_tick_at !== null, { watcher: () => watcher.status() });
      relay.cut();
      await waitForWatcher('the watcher to notice the socket is gone', () => watcher.status(), (s) => !s.heads_live, { watcher: () => watcher.status() });
      const first = (await create({ amount_usd: 1 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(first.receive_address, 1_000_000n);
      await waitForWatcher('a payment while the socket is down to be seen by polling', () => invoice(first.invoice_id), (i) => i.status === 'pending', { watcher: () => watcher.status() });
      assert.equal(heads.live, false, 'seen with no socket');

      relay.restore();
      await waitForWatcher('the head subscription to come back', () => watcher.status(), (s) => s.heads_live, { watcher: () => watcher.status() });
      // Back on heads, polling slows to NEVER_MS: the pass that sees this payment comes from a head.
      await waitForWatcher('a pass after the resubscription', () => watcher.status(), (s) => s.progress.step === 'waiting for the next poll', { watcher: () => watcher.status() });
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_MS));
      const second = (await create({ amount_usd: 2 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(second.receive_address, 2_000_000n);
      await waitForWatcher('a payment after the reconnection to be seen', () => invoice(second.invoice_id), (i) => i.status === 'pending', { watcher: () => watcher.status() });
    } finally {
      await watcher.stop();
      await relay.close();
    }
  }),
);

test('paced by block time: about one head read per block, and a payment in an interval-mined block is still seen', { timeout: 180_000 }, () =>
  withChain(async (chain) => {
    // Blocks every second, as a real chain makes them (not one per transaction).
    await chain.anvil.rpc('evm_setIntervalMining', [1]);
    let headReads = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(init?.body).includes('"eth_blockNumber"')) headReads++;
      return fetch(input, init);
    };
    const source = createRpcSource(chain.anvil.url, { fetch: counting, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
    const POLL_MS = 200;
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), {
      sources: [source],
      pace: { pollIntervalMs: POLL_MS, blockTimeMs: 1_000 },
    });
    watcher.start();
    try {
      await waitForWatcher('a first pass', () => watcher.status(), (s) => s.last_tick_at !== null, { watcher: () => watcher.status() });
      const created = (await create({ amount_usd: 4 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 4_000_000n);
      await waitForWatcher('the payment to be seen', () => invoice(created.invoice_id), (i) => i.status === 'pending', { watcher: () => watcher.status() });
      const readsBefore = headReads;
      const heightBefore = await chain.anvil.provider.getBlockNumber();
      await waitForWatcher('five more blocks', () => chain.anvil.provider.getBlockNumber(), (height) => height >= heightBefore + 5, { watcher: () => watcher.status() });
      const blocks = (await chain.anvil.provider.getBlockNumber()) - heightBefore;
      // Polling every 200 ms reads the head five times a block; paced, once (plus a few while a block is late).
      assert.ok(headReads - readsBefore <= blocks * 3, `${headReads - readsBefore} head reads over ${blocks} blocks`);
      await waitForWatcher('the payment to confirm', () => invoice(created.invoice_id), (i) => i.status === 'confirmed', { watcher: () => watcher.status() });
    } finally {
      await watcher.stop();
    }
  }),
);

test('a subscription that stops announcing while its socket stays up is made again', { timeout: 180_000 }, () =>
  withChain(async (chain) => {
    const relay = await cuttableRelay(wsUrl(chain.anvil.url));
    const heads = createHeadSubscription({ url: relay.url, clock: systemClock, logger: silentLogger, maxBackoffMs: 500 });
    const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), {
      pace: { heads, pollIntervalMs: NEVER_MS, headsCheckMs: 300, blockTimeMs: 0 },
    });
    watcher.start();
    try {
      await waitForWatcher('the head subscription to go live', () => watcher.status(), (s) => s.heads_live && s.last_tick_at !== null, { watcher: () => watcher.status() });
      assert.equal(relay.connections, 1);
      relay.mute();
      // Two blocks the muted subscription does not announce: the timer's head check finds them.
      const created = (await create({ amount_usd: 1 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 1_000_000n);
      await chain.anvil.mine(1);
      await waitForWatcher('a new subscription on a new connection', () => relay.connections, (n) => n >= 2, { watcher: () => watcher.status() });
      await waitForWatcher('the new subscription to go live', () => watcher.status(), (s) => s.heads_live, { watcher: () => watcher.status() });
      await waitForWatcher('the payment to be seen', () => invoice(created.invoice_id), (i) => i.status === 'pending', { watcher: () => watcher.status() });
    } finally {
      await watcher.stop();
      await relay.close();
    }
  }),
);

test('a node frame that is JSON but no message object (null, a number) is ignored: the subscription still goes live and announces heads', async () => {
  const node = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => node.once('listening', resolve));
  node.on('connection', (client) =>
    client.once('message', () => {
      for (const frame of ['null', '5', '"text"', '{"jsonrpc":"2.0","id":1,"result":"0x1"}', 'null', '{"jsonrpc":"2.0","method":"eth_subscription","params":{"result":{"number":"0x10"}}}']) client.send(frame);
    }),
  );
  const heads = createHeadSubscription({ url: `ws://127.0.0.1:${(node.address() as AddressInfo).port}`, clock: systemClock, logger: silentLogger });
  const announced: (number | null)[] = [];
  try {
    await new Promise<void>((resolve) =>
      heads.start((height) => {
        announced.push(height);
        if (height !== null) resolve();
      }),
    );
    assert.deepEqual(announced, [null, 16]);
    assert.equal(heads.live, true);
    assert.equal(heads.lastError, null);
  } finally {
    heads.close();
    node.close();
  }
});
