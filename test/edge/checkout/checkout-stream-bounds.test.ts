import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';

/** An answer to GET …/events from one client address (a loopback address of its own: 127.0.0.N). */
interface StreamAnswer {
  status: number;
  retryAfter: string | undefined;
  /** The error envelope's code when refused. */
  code?: string;
  /** The stream's text so far (open streams). */
  text(): string;
  ended: Promise<void>;
  close(): void;
}

/** Opens a stream from `localAddress`; an accepted one resolves once its first view has arrived. */
function openStream(url: string, localAddress: string): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false }, (res: IncomingMessage) => {
      let text = '';
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      res.setEncoding('utf8');
      const answer = (code?: string): StreamAnswer => ({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, code, text: () => text, ended, close: () => req.destroy() });
      if (res.statusCode !== 200) {
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(answer((JSON.parse(text) as { error: { code: string } }).error.code)));
        return;
      }
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('event: view')) resolve(answer());
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: string, attempt: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('checkout event streams: caps per client address and in total, a lifetime (listener)', () => {
  test('20 streams from one address stream, the 21st is refused (429 too_many_streams, Retry-After) while another address still streams; a closed stream frees its slot', async () => {
    const listener = await startTestListener();
    const streams: StreamAnswer[] = [];
    try {
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 10_000 });
      assert.equal(created.status, 201, created.text);
      const url = `${listener.url}/checkout/${created.json.invoice_id}/events`;
      for (let i = 0; i < 20; i++) streams.push(await openStream(url, '127.0.0.1'));
      assert.deepEqual(streams.map((s) => s.status), Array(20).fill(200), 'the first 20 all stream');
      assert.ok(streams.every((s) => s.text().includes('event: view')));

      const refused = await openStream(url, '127.0.0.1');
      assert.deepEqual([refused.status, refused.code, refused.retryAfter], [429, 'too_many_streams', '30']);
      const polled = await fetch(`${listener.url}/checkout/${created.json.invoice_id}`);
      assert.equal(polled.status, 200, 'the view the page polls instead still answers');

      const other = await openStream(url, '127.0.0.2');
      assert.equal(other.status, 200, 'another address is not affected');
      streams.push(other);

      streams[0]!.close();
      const again = await until('a slot freed by the closed stream', () => openStream(url, '127.0.0.1'), (s) => s.status === 200);
      streams.push(again);
    } finally {
      for (const stream of streams) stream.close();
      await listener.stop();
    }
  });

  test('CHECKOUT_STREAMS_MAX: beyond the total, a new address gets 503 capacity with Retry-After', async () => {
    const listener = await startTestListener({ env: { CHECKOUT_STREAMS_MAX: '3' } });
    const streams: StreamAnswer[] = [];
    try {
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 10_000 });
      const url = `${listener.url}/checkout/${created.json.invoice_id}/events`;
      for (const address of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) streams.push(await openStream(url, address));
      assert.deepEqual(streams.map((s) => s.status), [200, 200, 200]);
      const refused = await openStream(url, '127.0.0.4');
      assert.deepEqual([refused.status, refused.code, refused.retryAfter], [503, 'capacity', '30']);
      // An unknown invoice takes no slot for long: not_found, and the count is unchanged.
      streams[2]!.close();
      const missing = await until('the slot back', () => openStream(`${listener.url}/checkout/inv_missing/events`, '127.0.0.4'), (s) => s.status === 404);
      assert.equal(missing.code, 'not_found');
      assert.equal((await openStream(url, '127.0.0.4')).status, 200, 'the not-found request gave its slot back');
    } finally {
      for (const stream of streams) stream.close();
      await listener.stop();
    }
  });

  test('CHECKOUT_STREAM_MAX_S: a stream ends with event: reconnect at its lifetime and gives its slot back', async () => {
    const listener = await startTestListener({ env: { CHECKOUT_STREAM_MAX_S: '1', CHECKOUT_STREAMS_PER_CLIENT: '1' } });
    try {
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 10_000 });
      const url = `${listener.url}/checkout/${created.json.invoice_id}/events`;
      const stream = await openStream(url, '127.0.0.1');
      assert.equal(stream.status, 200);
      await stream.ended;
      assert.match(stream.text(), /event: reconnect\ndata: \{\}\n\n$/);
      const next = await openStream(url, '127.0.0.1');
      assert.equal(next.status, 200, 'the one slot of this address is free again');
      next.close();
    } finally {
      await listener.stop();
    }
  });
});

describe('checkout event streams on Cloud', () => {
  test('the per-address cap holds at /api/v1/checkout/{id}/events; another address streams', async () => {
    const cloud = await startTestCloud({ env: { CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com', CHECKOUT_STREAMS_PER_CLIENT: '2' } });
    const streams: StreamAnswer[] = [];
    try {
      const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 15_000 }, { 'x-service-api-key': merchant.api_key });
      assert.equal(created.status, 201, created.text);
      const url = `${cloud.url}/api/v1/checkout/${created.json.invoice_id}/events`;
      streams.push(await openStream(url, '127.0.0.1'), await openStream(url, '127.0.0.1'));
      assert.deepEqual(streams.map((s) => s.status), [200, 200]);
      const refused = await openStream(url, '127.0.0.1');
      assert.deepEqual([refused.status, refused.code, refused.retryAfter], [429, 'too_many_streams', '30']);
      const other = await openStream(url, '127.0.0.2');
      streams.push(other);
      assert.equal(other.status, 200);
    } finally {
      for (const stream of streams) stream.close();
      await cloud.stop();
    }
  });
});

describe('HTTP server bounds, both editions', () => {
  const openSocket = (port: number) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
  /** What the server does with a connection: `closed` when it ends it without a byte, else its first bytes. */
  const fate = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text || 'closed'));
    });

  for (const edition of ['listener', 'cloud'] as const) {
    test(`${edition}: HTTP_MAX_CONNECTIONS=10: the 11th connection is closed at once; HTTP_HEADERS_TIMEOUT_S=1: headers not in after a second get the envelope and the connection is closed`, async () => {
      const env = { HTTP_MAX_CONNECTIONS: '10', HTTP_HEADERS_TIMEOUT_S: '1', HTTP_REQUEST_TIMEOUT_S: '2' };
      const running = edition === 'listener' ? await startTestListener({ env }) : await startTestCloud({ env });
      const port = Number(new URL(running.url).port);
      const held: Socket[] = [];
      try {
        // Ten connections, each with a request under way that never completes its headers.
        for (let i = 0; i < 10; i++) {
          const socket = await openSocket(port);
          socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
          held.push(socket);
        }
        const fates = held.map(fate);
        const eleventh = await openSocket(port);
        assert.equal(await fate(eleventh), 'closed', 'beyond the cap: closed without an answer');
        // Each held request runs out of time: 400 bad_body ("did not arrive in time"), Connection: close.
        for (const answer of await Promise.all(fates)) {
          assert.match(answer, /^HTTP\/1\.1 400 /);
          assert.match(answer, /Connection: close/i);
          assert.equal(JSON.parse(answer.split('\r\n\r\n')[1]!).error.code, 'bad_body');
        }
        assert.equal((await fetch(`${running.url}/${edition === 'listener' ? 'health' : 'api/v1/health'}`)).status, 200, 'free again: served');
      } finally {
        for (const socket of held) socket.destroy();
        await running.stop();
      }
    });
  }
});
