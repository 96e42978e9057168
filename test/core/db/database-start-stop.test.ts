import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { enqueueEvent } from '../../../core/events/outbox.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { listDeliveries } from '../../../core/webhooks/delivery-store.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL } from '../../helpers/listener.ts';
import { releasedPort } from '../../helpers/ports.ts';
import { privatePostgresSkip, startPrivatePostgres } from '../../helpers/private-postgres.ts';
import { runCli, spawnListener } from '../../helpers/process.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const WAITING = '"msg":"database unreachable; waiting for it"';

describe('starting while PostgreSQL is down', { skip: privatePostgresSkip }, () => {
  it('waits, saying so every few seconds, then exits 1 with a plain message naming DATABASE_WAIT_S', async () => {
    const port = await releasedPort();
    const startedAt = Date.now();
    const run = await runCli(['start'], {
      env: {
        PORT: '0',
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
        DATABASE_WAIT_S: '4',
        MERCHANT_BTC_XPUB: BIP84_ZPUB,
        BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
      },
      timeoutMs: 60_000,
    });
    const tookMs = Date.now() - startedAt;
    assert.equal(run.code, 1, run.stderr);
    assert.ok(tookMs >= 4_000, `waited DATABASE_WAIT_S first (${tookMs} ms)`);
    assert.match(run.stderr, /could not be reached for 4 s .*DATABASE_WAIT_S/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(run.stderr.trim().split('\n').length, 1, `one plain line: ${run.stderr}`);
    const waiting = run.stdout.split('\n').filter((line) => line.includes(WAITING));
    assert.ok(waiting.length >= 2 && waiting.length <= 3, `said so once every few seconds:\n${run.stdout}`);
    assert.match(waiting[0], /"setting":"DATABASE_WAIT_S"/);
  });

  it('starts once the database comes up within DATABASE_WAIT_S', async () => {
    const server = await startPrivatePostgres();
    try {
      await server.stop();
      let output = '';
      const starting = spawnListener({ DATABASE_URL: server.url, DATABASE_WAIT_S: '60' }, undefined, { onOutput: (text) => (output = text) });
      // The database comes up once the listener has said twice that it is waiting for it.
      await waitForWatcher('the listener waiting for the database', () => output.split(WAITING).length - 1, (n) => n >= 2, { watcher: () => output, timeoutMs: 60_000 });
      await server.start();
      const listener = await starting;
      try {
        assert.ok(listener.output().includes(WAITING), listener.output());
        const health = await (await fetch(`${listener.url}/health`)).json();
        assert.deepEqual(health.problems, []);
      } finally {
        assert.equal(await listener.stop(), 0);
      }
    } finally {
      await server.destroy();
    }
  });
});

describe('SIGTERM with a request and a webhook attempt in flight', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'graceful-stop-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('stops taking connections, finishes both, exits 0; the invoice is stored and the delivery recorded', async () => {
    const databaseUrl = `sqlite:${join(dir, 'service.db')}`;
    const merchantId = 'm_graceful';
    const seed = await openCoreDatabase(databaseUrl, defaultChains);
    await enqueueEvent(seed.db, {
      merchantId,
      createdAt: Date.now(),
      payload: {
        event: 'payment.orphan',
        chain: 'base',
        asset: 'USDC',
        token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        address: '0x1111111111111111111111111111111111111111',
        tx_hash: `0x${'cd'.repeat(32)}`,
        value: '1.000417',
        detected_at: '2026-01-01T00:00:00.000Z',
      },
    });
    await seed.close();

    // A receiver that holds the attempt until the test lets it answer.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let hooks = 0;
    const hookServer = createServer(async (req, res) => {
      for await (const _chunk of req);
      hooks++;
      await released;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;

    const listener = await spawnListener({ DATABASE_URL: databaseUrl, MERCHANT_ID: merchantId, MERCHANT_WEBHOOK_URL: hookUrl, MERCHANT_WEBHOOK_SECRET: 'whsec_graceful_stop_secret' });
    try {
      await waitForWatcher('the webhook attempt in flight', () => hooks, (n) => n === 1, { watcher: listener.output });

      // A request under way: its head and half its body sent, the rest after the SIGTERM.
      const { port } = new URL(listener.url);
      const body = '{"amount_sats":12345}';
      const socket = connect(Number(port), '127.0.0.1');
      const answer = new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
      });
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      await new Promise<void>((resolve) =>
        socket.write(`POST /invoice HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 8)}`, () => resolve()),
      );
      // Margin for the listener to read the request's head before the signal.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const exited = listener.stop();

      await waitForWatcher('new connections refused', async () => fetch(`${listener.url}/health`).then(() => 'accepted', (error: Error) => String(error.cause ?? error)), (r) => r.includes('ECONNREFUSED'), {
        watcher: listener.output,
        timeoutMs: 10_000,
      });
      socket.end(body.slice(8));
      release();
      const response = await answer;
      assert.match(response, /^HTTP\/1\.1 201 /, response);
      const invoice = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
      assert.equal(await exited, 0, listener.output());

      const db = await openCoreDatabase(databaseUrl, defaultChains);
      try {
        const stored = await db.db.selectFrom('invoices').select(['invoice_id', 'amount_sats']).where('invoice_id', '=', invoice.invoice_id).executeTakeFirst();
        assert.equal(Number(stored?.amount_sats), 12345, 'the invoice answered during the stop is stored');
        const [delivered] = await listDeliveries(db.db, merchantId, ['delivered']);
        assert.equal(delivered?.attempts, 1, 'the attempt in flight finished and was recorded as delivered');
        assert.equal(delivered.lastHttpStatus, 200);
      } finally {
        await db.close();
      }
    } finally {
      if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
      release();
      await new Promise<void>((resolve) => hookServer.close(() => resolve()));
    }
  });
});
