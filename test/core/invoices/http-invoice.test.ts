import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BtcInvoice, BtcInvoiceCreated, ErrorEnvelope, Health, errorCatalogue } from '../../../shared/index.ts';
import type { RunningListener } from '../../../listener/app.ts';
import { manualClock } from '../../../core/clock.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';

const API_KEY = 'test-api-key-0123456789abcdef';

/** Every error answer must be the envelope with the catalogue's status, and never leak internals. */
function assertError(result: { status: number; json: unknown; text: string }, code: keyof typeof errorCatalogue) {
  assert.equal(result.status, errorCatalogue[code].status, result.text);
  const envelope = ErrorEnvelope.parse(result.json);
  assert.equal(envelope.error.code, code);
  assert.doesNotMatch(result.text, /\bat .*\.ts:\d+|node_modules|Error:/);
}

describe('POST /invoice and GET /invoice/:id (btc)', () => {
  let listener: RunningListener;
  const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  before(async () => {
    listener = await startTestListener({ clock, env: { SERVICE_API_KEY: API_KEY } });
  });
  after(() => listener.stop());
  const auth = { 'X-Service-Api-Key': API_KEY };

  it('creates an invoice with the BIP-84 known-answer addresses, in order', async () => {
    const first = await postJson(`${listener.url}/invoice`, { amount_sats: 1000, memo: 'Order #42' }, auth);
    assert.equal(first.status, 201, first.text);
    const invoice = BtcInvoiceCreated.strict().parse(first.json);
    assert.equal(invoice.receive_address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(invoice.child_index, 0);
    assert.equal(invoice.derivation_path, "m/84'/0'/0'/0/0");
    assert.equal(invoice.amount_btc, '0.00001000');
    assert.equal(invoice.amount_sats, 1000);
    assert.equal(invoice.network, 'mainnet');
    assert.equal(invoice.status, 'pending');
    assert.equal(invoice.qr_uri, 'bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.00001&label=Order%20%2342');
    assert.equal(invoice.verify_url, 'https://mempool.space/address/bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(invoice.created_at, '2026-11-22T12:00:00.000Z');
    assert.equal(invoice.expires_at, '2026-11-22T13:00:00.000Z');
    assert.equal(invoice.tx_hash, null);
    assert.equal(invoice.paid_at, null);

    const second = await postJson(`${listener.url}/invoice`, { amount_sats: 5 }, auth);
    assert.equal(second.json.receive_address, 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    assert.equal(second.json.child_index, 1);
  });

  it('reads the stored invoice back without the one-shot fields', async () => {
    const created = await postJson(`${listener.url}/invoice`, { amount_sats: 123_456_789, expires_in: 60 }, auth);
    const response = await fetch(`${listener.url}/invoice/${created.json.invoice_id}`);
    assert.equal(response.status, 200);
    const stored = BtcInvoice.strict().parse(await response.json());
    assert.equal(stored.invoice_id, created.json.invoice_id);
    assert.equal(stored.amount_btc, '1.23456789');
    assert.equal(stored.receive_address, created.json.receive_address);
    assert.equal(stored.status, 'pending');
  });

  it('reads a pending invoice past expires_at as expired, and keeps it so', async () => {
    const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1000, expires_in: 1 }, auth);
    const url = `${listener.url}/invoice/${created.json.invoice_id}`;
    assert.equal((await (await fetch(url)).json()).status, 'pending');
    clock.advance(1000);
    const expired = await (await fetch(url)).json();
    assert.equal(expired.status, 'expired');
    assert.equal(expired.updated_at, new Date(clock.now()).toISOString());
    clock.advance(-5000);
    assert.equal((await (await fetch(url)).json()).status, 'expired', 'expiry is stored, not recomputed');
    clock.advance(5000);
  });

  describe('each error code of the listener', () => {
    const cases: Array<[string, keyof typeof errorCatalogue, string | object]> = [
      ['body is not JSON', 'bad_body', '{"amount_sats": 10'],
      ['body is a JSON array', 'bad_body', '[1000]'],
      ['body is a JSON string', 'bad_body', '"1000"'],
      ['body is larger than 16 KB', 'bad_body', { amount_sats: 1000, memo: 'x'.repeat(17 * 1024) }],
      ['memo over 200 characters', 'bad_body', { amount_sats: 1000, memo: 'x'.repeat(201) }],
      ['expires_in zero', 'bad_body', { amount_sats: 1000, expires_in: 0 }],
      ['expires_in not an integer', 'bad_body', { amount_sats: 1000, expires_in: 1.5 }],
      ['amount missing', 'invalid_amount', {}],
      ['amount zero', 'invalid_amount', { amount_sats: 0 }],
      ['amount negative', 'invalid_amount', { amount_sats: -5 }],
      ['amount fractional', 'invalid_amount', { amount_sats: 10.5 }],
      ['amount as a string', 'invalid_amount', { amount_sats: '1000' }],
      ['amount above 21 million BTC', 'invalid_amount', { amount_sats: 2_100_000_000_000_001 }],
      ['unknown chain', 'unsupported_chain', { chain: 'doge', amount_sats: 1000 }],
      ['ethereum not configured', 'base_disabled', { chain: 'eth', amount_usd: 5 }],
      ['base not configured', 'base_disabled', { chain: 'base', amount_usd: 5 }],
      ['unknown asset', 'asset_disabled', { amount_sats: 1000, asset: 'doge' }],
    ];
    for (const [title, code, body] of cases) {
      it(`${code}: ${title}`, async () => {
        assertError(await postJson(`${listener.url}/invoice`, body, auth), code);
      });
    }

    it('unauthorized: missing key, wrong key, key of another length', async () => {
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }), 'unauthorized');
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': `${API_KEY.slice(0, -1)}x` }), 'unauthorized');
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': 'k' }), 'unauthorized');
    });

    it('the key protects POST /invoice only', async () => {
      assert.equal((await fetch(`${listener.url}/health`)).status, 200);
      assert.equal((await fetch(`${listener.url}/openapi.json`)).status, 200);
    });

    it('not_found: unknown invoice, unknown route, wrong method', async () => {
      assertError(await textOf(fetch(`${listener.url}/invoice/inv_doesnotexist`)), 'not_found');
      assertError(await textOf(fetch(`${listener.url}/nothing/here`)), 'not_found');
      assertError(await textOf(fetch(`${listener.url}/invoice`, { method: 'DELETE' })), 'not_found');
    });
  });
});

async function textOf(pending: Promise<Response>) {
  const response = await pending;
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) };
}

describe('errors that need a particular listener', () => {
  it('chain_disabled: no MERCHANT_BTC_XPUB', async () => {
    const listener = await startTestListener({ env: { MERCHANT_BTC_XPUB: '' } });
    try {
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }), 'chain_disabled');
    } finally {
      await listener.stop();
    }
  });

  it('rate_limited with Retry-After, per client, until the window slides', async () => {
    const clock = manualClock();
    const listener = await startTestListener({ clock, env: { SERVICE_RATE_LIMIT: '3,100' } });
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await postJson(`${listener.url}/invoice`, { amount_sats: 1000 })).status, 201);
        clock.advance(10_000);
      }
      const limited = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
      assertError(limited, 'rate_limited');
      // The first request was 30 s ago: it leaves the one-minute window in 30 s.
      assert.equal(limited.headers.get('retry-after'), '30');
      clock.advance(30_000);
      assert.equal((await postJson(`${listener.url}/invoice`, { amount_sats: 1000 })).status, 201);
    } finally {
      await listener.stop();
    }
  });

  it('the overall window limits all clients together', async () => {
    const clock = manualClock();
    const listener = await startTestListener({ clock, env: { SERVICE_RATE_LIMIT: '100,2', TRUST_PROXY: 'true' } });
    try {
      const from = (ip: string) => ({ 'X-Forwarded-For': ip });
      assert.equal((await postJson(`${listener.url}/invoice`, { amount_sats: 1 }, from('203.0.113.1'))).status, 201);
      assert.equal((await postJson(`${listener.url}/invoice`, { amount_sats: 1 }, from('203.0.113.2'))).status, 201);
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1 }, from('203.0.113.3')), 'rate_limited');
    } finally {
      await listener.stop();
    }
  });

  it('with TRUST_PROXY the client is the forwarded address; without it, the socket', async () => {
    const clock = manualClock();
    const proxied = await startTestListener({ clock, env: { SERVICE_RATE_LIMIT: '1,100', TRUST_PROXY: 'true' } });
    const direct = await startTestListener({ clock, env: { SERVICE_RATE_LIMIT: '1,100' } });
    try {
      for (const ip of ['203.0.113.1', '203.0.113.2']) {
        assert.equal((await postJson(`${proxied.url}/invoice`, { amount_sats: 1 }, { 'X-Forwarded-For': ip })).status, 201);
      }
      assert.equal((await postJson(`${direct.url}/invoice`, { amount_sats: 1 }, { 'X-Forwarded-For': '203.0.113.1' })).status, 201);
      assertError(await postJson(`${direct.url}/invoice`, { amount_sats: 1 }, { 'X-Forwarded-For': '203.0.113.2' }), 'rate_limited');
    } finally {
      await proxied.stop();
      await direct.stop();
    }
  });

  it('create_failed and lookup_failed when storage fails, and nothing already stored is lost', async () => {
    const listener = await startTestListener();
    try {
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
      assert.equal(created.status, 201);
      const sqlite = listener.database.db;
      // Make the tables unreadable without touching their rows: rename them away and back.
      await sqlite.schema.alterTable('invoices').renameTo('invoices_away').execute();
      await sqlite.schema.alterTable('address_counters').renameTo('address_counters_away').execute();
      assertError(await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }), 'create_failed');
      assertError(await textOf(fetch(`${listener.url}/invoice/${created.json.invoice_id}`)), 'lookup_failed');
      await sqlite.schema.alterTable('invoices_away').renameTo('invoices').execute();
      await sqlite.schema.alterTable('address_counters_away').renameTo('address_counters').execute();
      const stored = await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json();
      assert.equal(stored.receive_address, created.json.receive_address);
      const next = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
      assert.equal(next.json.child_index, 1, 'the failed request skipped no index');
    } finally {
      await listener.stop();
    }
  });
});

describe('GET /health', () => {
  it('returns the six fields of the spec', async () => {
    const listener = await startTestListener();
    try {
      const health = Health.strict().parse(await (await fetch(`${listener.url}/health`)).json());
      assert.equal(health.ok, true);
      assert.equal(health.ws_connected, false);
      assert.equal(health.subscribed_count, 0);
      assert.equal(health.last_block_height, null);
      assert.ok(health.uptime_s >= 0);
    } finally {
      await listener.stop();
    }
  });
});
