import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { openCoreDatabase, type CoreDatabase } from '../../../core/schema.ts';
import { createLightningPlatform } from '../../../core/btc/lightning/lightning-platform.ts';
import { createRelayPool, publicOnlyConnect, type RelayConnect, type RelayListener, type RelayPool } from '../../../core/btc/lightning/relay-pool.ts';
import type { ResolvedAddress, Resolver } from '../../../core/net/webhook-target.ts';
import type { LightningPlatform } from '../../../core/merchant-chain.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const RETRY = { baseMs: 100, maxMs: 400 };
/** Any public address: the tests never let a socket reach it. */
const PUBLIC_ADDRESS: ResolvedAddress = { address: '93.184.216.34', family: 4 };
const LOOPBACK_ADDRESS: ResolvedAddress = { address: '127.0.0.1', family: 4 };

/** A WebSocket server on 127.0.0.1 that counts every TCP connection made to it, handshake or not. */
async function startCountingServer(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const http: Server = createServer();
  const sockets = new WebSocketServer({ server: http });
  let connections = 0;
  http.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    connections: () => connections,
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A resolver that gives `answers[i]` on its i-th call (the last one from then on), counting the calls. */
function scriptedResolver(...answers: Array<() => Promise<ResolvedAddress[]>>): Resolver & { calls(): number } {
  let calls = 0;
  const resolve = () => answers[Math.min(calls++, answers.length - 1)]();
  return Object.assign(resolve, { calls: () => calls });
}

const answering = (address: ResolvedAddress) => async () => [address];

/** A listener nothing is ever sent to: it only makes the pool open the relay. */
const idleListener = (): RelayListener => ({ walletPubkey: 'a'.repeat(64), clientPubkey: 'b'.repeat(64), kinds: [23196], onEvent: () => {} });

/** A connect that remembers the sockets it opened and counts its dials. */
function recording(connect: RelayConnect) {
  const sockets: WebSocket[] = [];
  let dials = 0;
  const wrapped: RelayConnect = (url, maxFrameBytes) => {
    dials += 1;
    const ws = connect(url, maxFrameBytes);
    sockets.push(ws);
    return ws;
  };
  return { connect: wrapped, sockets, dials: () => dials };
}

const healthOf = (pool: RelayPool, url: string) => pool.health().find((h) => h.relay === url);

describe('a relay pool that connects only to public addresses', () => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  const pools: RelayPool[] = [];
  const poolWith = (connect?: RelayConnect) => {
    const pool = createRelayPool({ clock: systemClock, logger: silentLogger, retry: RETRY, ...(connect ? { connect } : {}) });
    pools.push(pool);
    return pool;
  };

  before(async () => {
    server = await startCountingServer();
  });
  after(async () => {
    for (const pool of pools) pool.close();
    await server?.close();
  });

  test('without the pin, the relay host used below reaches the local server (what the pinned tests guard against)', async () => {
    const before = server.connections();
    const pool = poolWith();
    const url = `ws://localhost:${server.port}`;
    pool.listen([url], idleListener());
    await waitForWatcher('the unpinned pool connects', () => healthOf(pool, url), (h) => h?.connected === true, { watcher: () => pool.health() });
    assert.ok(server.connections() > before);
    pool.close();
  });

  test('a host the resolver maps to 127.0.0.1 is never connected to; health names the host, and it is retried with backoff', async () => {
    const before = server.connections();
    const resolve = scriptedResolver(answering(LOOPBACK_ADDRESS));
    const pool = poolWith(publicOnlyConnect(resolve));
    const url = `ws://localhost:${server.port}`;
    const started = Date.now();
    pool.listen([url], idleListener());
    const health = await waitForWatcher('three refused dials', () => ({ calls: resolve.calls(), health: healthOf(pool, url) }), (seen) => seen.calls >= 3 || server.connections() > before, { watcher: () => pool.health() });
    assert.equal(server.connections(), before, 'the server saw no connection');
    // Dial, wait 100 ms, dial, wait 200 ms, dial: a refusal waits its backoff like any failure.
    assert.ok(Date.now() - started >= RETRY.baseMs * 3, `three dials came ${Date.now() - started} ms apart in all`);
    assert.equal(health.health?.connected, false);
    assert.match(health.health?.problem ?? '', /relay error: host localhost resolves to 127\.0\.0\.1, not a public address/);
  });

  test('a private IP-literal relay (dialled by node without a lookup) is refused before connecting, and retried with backoff', async () => {
    const before = server.connections();
    const resolve = scriptedResolver(answering(PUBLIC_ADDRESS));
    const dialer = recording(publicOnlyConnect(resolve));
    const pool = poolWith(dialer.connect);
    const url = `ws://127.0.0.1:${server.port}`;
    const started = Date.now();
    pool.listen([url], idleListener());
    const health = await waitForWatcher('three refused dials', () => ({ dials: dialer.dials(), health: healthOf(pool, url) }), (seen) => seen.dials >= 3 || server.connections() > before, { watcher: () => pool.health() });
    assert.equal(server.connections(), before, 'the server saw no connection');
    assert.equal(dialer.sockets.length, 0, 'no socket was opened');
    assert.equal(resolve.calls(), 0);
    assert.ok(Date.now() - started >= RETRY.baseMs * 3, `three dials came ${Date.now() - started} ms apart in all`);
    assert.match(health.health?.problem ?? '', /relay error: host 127\.0\.0\.1 is not a public address/);
  });

  test('a host that answered a public address, then 127.0.0.1 when the relay is dialled again, is refused on the redial', async () => {
    const before = server.connections();
    const dialer = recording((url, maxFrameBytes) => pinned(url, maxFrameBytes));
    // The first answer is public. So that no packet leaves for it, the socket is dropped while its
    // lookup is under way (node then never connects); the pool dials again, and the name now answers 127.0.0.1.
    const resolve = scriptedResolver(
      () =>
        new Promise((answer) =>
          setImmediate(() => {
            dialer.sockets.at(-1)!.terminate();
            answer([PUBLIC_ADDRESS]);
          }),
        ),
      answering(LOOPBACK_ADDRESS),
    );
    const pinned = publicOnlyConnect(resolve);
    const pool = poolWith(dialer.connect);
    const url = `ws://localhost:${server.port}`;
    pool.listen([url], idleListener());
    const health = await waitForWatcher('the redial is refused', () => healthOf(pool, url), (h) => (resolve.calls() >= 2 && /127\.0\.0\.1/.test(h?.problem ?? '')) || server.connections() > before, { watcher: () => pool.health() });
    assert.equal(server.connections(), before, 'the server saw no connection');
    assert.match(health?.problem ?? '', /relay error: host localhost resolves to 127\.0\.0\.1, not a public address/);
    assert.equal(health?.connected, false);
  });
});

describe('the Lightning platform’s relays on Cloud (loopbackRelays false)', () => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  let database: CoreDatabase;
  const platforms: LightningPlatform[] = [];
  const secret = generateSecretKey();
  const walletPubkey = getPublicKey(generateSecretKey());

  const platformWith = (loopbackRelays: boolean, resolve: Resolver) => {
    const connection = `nostr+walletconnect://${walletPubkey}?relay=${encodeURIComponent(`wss://localhost:${server.port}`)}&secret=${Buffer.from(secret).toString('hex')}`;
    const platform = createLightningPlatform(
      { explorerUrls: { regtest: 'http://127.0.0.1:9/explorer' } },
      { db: database.db, feed: createMemoryStatusFeed(), clock: systemClock, logger: silentLogger, loopbackRelays, resolve, connections: async () => [{ merchantId: 'm1', connection, network: 'regtest' }], refreshMs: 100 },
    );
    platforms.push(platform);
    platform.start();
    return platform;
  };

  before(async () => {
    server = await startCountingServer();
    database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  });
  after(async () => {
    for (const platform of platforms) {
      await platform.stop();
      platform.close();
    }
    await database?.close();
    await server?.close();
  });

  test('a relay whose host resolves to 127.0.0.1 is never connected to and is named among the platform’s problems', async () => {
    const before = server.connections();
    const platform = platformWith(false, scriptedResolver(answering(LOOPBACK_ADDRESS)));
    const problems = await waitForWatcher('the relay is named', () => platform.problems(), (list) => list.some((p) => /resolves to 127\.0\.0\.1/.test(p.reason)) || server.connections() > before, { watcher: () => platform.problems() });
    assert.equal(server.connections(), before, 'the server saw no connection');
    assert.match(problems.find((p) => /127\.0\.0\.1/.test(p.reason))?.reason ?? '', new RegExp(`^relay wss://localhost:${server.port}: relay error: host localhost resolves to 127\\.0\\.0\\.1, not a public address$`));
  });

  test('with loopbackRelays (tests, the sandbox) the same relay is dialled as named: the server sees the connection', async () => {
    const before = server.connections();
    const platform = platformWith(true, scriptedResolver(answering(LOOPBACK_ADDRESS)));
    await waitForWatcher('the server sees a connection', () => server.connections(), (count) => count > before, { watcher: () => platform.problems() });
  });
});
