import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { base } from '../../core/evm/chains/base.ts';
const evmAdapter = base.adapter;
import { btcAdapter } from '../../core/btc/btc-adapter.ts';
import { manualClock, systemClock } from '../../core/clock.ts';
import { startExpirySweeper } from '../../core/invoices/expiry-sweeper.ts';
import { findInvoice, insertInvoice, type InvoiceRow } from '../../core/invoices/invoice.repository.ts';
import { createInvoiceEngine } from '../../core/invoices/invoice.service.ts';
import { openStatusFeed } from '../../core/invoices/pg-status-feed.ts';
import { silentLogger } from '../../core/log.ts';
import { createServiceMetrics } from '../../core/metrics.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningReceiver } from '../../core/webhooks/receiver.ts';
import { startListener, type RunningListener } from '../../listener/app.ts';
import { loadConfig } from '../../listener/config.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../sandbox/local-chain-server.ts';
import { repoRoot } from '../helpers/child.ts';
import { testDatabases } from '../helpers/databases.ts';
import { BIP84_ZPUB, postJson, startTestListener, tempSqliteUrl } from '../helpers/listener.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

/** The exposition as a third-party parser reads it. */
const parse = (text: string): Map<string, Family> => new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));

function sample(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  assert.ok(family, `metric ${name} is exposed`);
  const found = family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found.reduce((sum, m) => sum + Number(m.value ?? m.count ?? m.buckets?.['+Inf'] ?? 0), 0);
}

async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

describe('GET /metrics after create, pay, mine, deliver (listener, local Bitcoin chain)', () => {
  const apiKey = 'sk_metrics_test_key_0123456789abcdef';
  const secret = newWebhookSecret();
  const merchantId = 'merchant_metrics_test';
  let chain: LocalBtcChain;
  let server: LocalChainServer;
  let receiver: RunningReceiver;
  let listener: RunningListener;
  const received: ReceivedWebhook[] = [];

  before(async () => {
    chain = new LocalBtcChain();
    server = await startLocalChainServer(chain, {});
    receiver = await startWebhookReceiver({ host: '127.0.0.1', port: 0, path: '/webhook', secret, clock: systemClock, onEvent: (e) => received.push(e) });
    const xpub = BIP32Factory(ecc).fromSeed(Buffer.alloc(32, 9), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered().toBase58();
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: tempSqliteUrl(),
      MERCHANT_ID: merchantId,
      MERCHANT_BTC_XPUB: xpub,
      BTC_NETWORK: 'regtest',
      BTC_ESPLORA_URL: server.esploraUrl,
      SERVICE_API_KEY: apiKey,
      SERVICE_RATE_LIMIT: 'off',
      MERCHANT_WEBHOOK_URL: receiver.url,
      MERCHANT_WEBHOOK_SECRET: secret,
    }, defaultChains);
    listener = await startListener(config, { logger: silentLogger, tuning: { bitcoin: { pollIntervalMs: 200 } }, webhooks: { pollIntervalMs: 50 } });
  });
  after(async () => {
    await listener?.stop();
    await receiver?.close();
    await server?.close();
  });

  const scrape = async () => {
    const response = await fetch(`${listener.url}/metrics`);
    assert.equal(response.status, 200, await response.clone().text());
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return { text: await response.text(), families: parse(await (await fetch(`${listener.url}/metrics`)).text()) };
  };

  it('moves the counters the sequence should move, and no label names the merchant, address, key or invoice', async () => {
    const before = (await scrape()).families;
    assert.equal(sample(before, 'service_invoices_created_total'), 0);
    assert.equal(sample(before, 'service_webhook_attempts_total'), 0);

    const created = await postJson(`${listener.url}/invoice`, { amount_sats: 5_000 }, { 'X-Service-Api-Key': apiKey });
    assert.equal(created.status, 201, created.text);
    const invoice = created.json as { invoice_id: string; receive_address: string };
    await fetch(`${listener.url}/invoice/${invoice.invoice_id}`);
    const txid = chain.pay([{ address: invoice.receive_address, value: 5_000n }]);
    chain.mine(1);
    await waitFor('the invoice.confirmed delivery', () => received.length, (n) => n >= 1);
    const { text, families } = await waitFor(
      'the delivery to be recorded in the metrics',
      scrape,
      (s) => sample(s.families, 'service_webhook_attempts_total', { outcome: 'delivered' }) === 1,
    );

    assert.equal(sample(families, 'service_invoices_created_total', { chain: 'btc', asset: 'BTC' }), 1);
    assert.equal(sample(families, 'service_invoices', { chain: 'btc', asset: 'BTC', status: 'confirmed' }), 1);
    assert.equal(sample(families, 'service_invoices', { status: 'pending' }), 0);
    assert.equal(sample(families, 'service_invoice_transitions_total', { chain: 'btc', asset: 'BTC', status: 'confirmed' }), 1);
    assert.equal(sample(families, 'service_settlement_seconds'), 1, 'one settlement latency observed');
    assert.equal(sample(families, 'service_block_to_confirmed_seconds'), 1, 'one block-to-confirmed latency observed');
    assert.match(text, /^service_block_to_confirmed_seconds_count\{chain="btc"\} 1$/m);
    assert.equal(sample(families, 'service_webhook_attempts_total'), 1, 'one attempt, delivered');
    assert.equal(sample(families, 'service_webhook_delivery_seconds'), 1, 'one delivery latency observed');
    assert.equal(sample(families, 'service_webhook_outbox_depth'), 0);
    assert.equal(sample(families, 'service_webhook_oldest_undelivered_seconds'), 0);
    assert.equal(sample(families, 'service_http_requests_total', { method: 'POST', route: '/invoice', status: '201' }), 1);
    assert.equal(sample(families, 'service_http_requests_total', { method: 'GET', route: '/invoice/:id', status: '200' }), 1);
    assert.ok(sample(families, 'service_chain_source_requests_total', { source: new URL(server.esploraUrl).origin }) > 0);
    assert.equal(sample(families, 'service_chain_source_429_total'), 0);
    // The parser keeps a labelled histogram's buckets but drops its labels: only Bitcoin is watched here.
    assert.ok(sample(families, 'service_watcher_pass_seconds') > 0, 'watcher passes observed');
    assert.ok(sample(families, 'service_watcher_step_seconds') > 0, 'watcher steps observed');
    assert.match(text, /^service_watcher_pass_seconds_count\{chain="btc",outcome="ok"\} [1-9]/m);
    assert.equal(sample(families, 'service_watcher_lag_blocks', { chain: 'btc' }), 0);
    assert.ok(families.has('service_process_cpu_user_seconds_total'), 'process metrics');
    assert.ok(families.has('service_mcp_sessions'));

    const identifying = [merchantId, apiKey, secret, invoice.receive_address, invoice.invoice_id, txid];
    for (const family of families.values()) {
      for (const metric of family.metrics) {
        for (const value of Object.values(metric.labels ?? {})) assert.ok(!identifying.includes(value), `${family.name} carries ${value}`);
      }
    }
    for (const value of identifying) assert.ok(!text.includes(value), `the exposition never contains ${value}`);

    // The docs name every family, and the dashboard queries only families that exist.
    const documented = readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8');
    for (const name of families.keys()) {
      if (!/^service_(process|nodejs)_/.test(name)) assert.ok(documented.includes(`\`${name}\``), `docs/metrics.md lists ${name}`);
    }
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'docs/grafana-dashboard.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const queried = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\bservice_\w+/g) ?? []));
    assert.ok(queried.length > 20);
    for (const name of queried) assert.ok(families.has(name.replace(/_(bucket|count|sum)$/, '')), `the dashboard queries ${name}, which is exposed`);
  });

  it('counts an expiry once: the sweeper flips it at its expiry, a later read does not count it again', async () => {
    const expired = { chain: 'btc', asset: 'BTC', status: 'expired' };
    assert.equal(sample((await scrape()).families, 'service_invoice_transitions_total', expired), 0);
    const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1_000, expires_in: 1 }, { 'X-Service-Api-Key': apiKey });
    assert.equal(created.status, 201, created.text);
    const { invoice_id } = created.json as { invoice_id: string };
    // Nothing reads the invoice meanwhile: only the sweeper can flip it.
    await waitFor('the sweeper to expire the invoice', scrape, (s) => sample(s.families, 'service_invoice_transitions_total', expired) === 1);
    const read = (await (await fetch(`${listener.url}/invoice/${invoice_id}`)).json()) as { status: string };
    assert.equal(read.status, 'expired');
    assert.equal(sample((await scrape()).families, 'service_invoice_transitions_total', expired), 1);
  });

  it('refuses a request a proxy forwarded, even from loopback, when METRICS_TOKEN is unset', async () => {
    const response = await fetch(`${listener.url}/metrics`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'unauthorized');
  });

  const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  it('refuses a caller that is not on loopback when METRICS_TOKEN is unset, and a server listening beyond loopback refuses loopback too', { skip: external ? false : 'no non-loopback IPv4 interface here' }, async () => {
    const open = await startTestListener({ env: { HOST: '0.0.0.0' } });
    try {
      const port = new URL(open.url).port;
      const status = await new Promise<number>((resolve, reject) =>
        request({ host: external, port, path: '/metrics' }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject).end(),
      );
      assert.equal(status, 401);
      // A proxy on this host would reach it from loopback too: off loopback, only the token opens it.
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401, 'the same listener refuses loopback');
    } finally {
      await open.stop();
    }
  });
});

/**
 * A reverse proxy on the same host, as nginx's default `proxy_pass` is: it connects from loopback,
 * rewrites Host to the upstream's and adds only the headers it is told to (none by default).
 */
async function startSameHostProxy(upstream: string, addHeaders: Record<string, string>) {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, connection: 'close', ...addHeaders };
    const forwarded = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('GET /metrics behind a proxy on the same host', () => {
  const token = 'metrics-token-0123456789';
  const statusOf = async (url: string, headers: Record<string, string> = {}) => (await fetch(`${url}/metrics`, { headers })).status;

  it('a proxy that adds any forwarding header (X-Real-IP, Via, Forwarded, X-Forwarded-Host/Proto, …) is refused', async () => {
    const listener = await startTestListener();
    try {
      assert.equal(await statusOf(listener.url), 200, 'a scraper on this host, talking to it directly');
      const headers: Record<string, string>[] = [{ 'X-Real-IP': '203.0.113.7' }, { Via: '1.1 nginx' }, { Forwarded: 'for=203.0.113.7' }, { 'X-Forwarded-Host': 'pay.example.com' }, { 'X-Forwarded-Proto': 'https' }, { 'True-Client-IP': '203.0.113.7' }];
      for (const header of headers) {
        const proxy = await startSameHostProxy(listener.url, header);
        try {
          assert.equal(await statusOf(proxy.url), 401, JSON.stringify(header));
        } finally {
          await proxy.close();
        }
      }
    } finally {
      await listener.stop();
    }
  });

  for (const edition of ['listener', 'cloud'] as const) {
    it(`${edition}: with PUBLIC_URL set, a proxy that adds no header at all gets no metrics; the token opens them through it`, async () => {
      const running = edition === 'listener'
        ? await startTestListener({ env: { PUBLIC_URL: 'https://pay.example.com', METRICS_TOKEN: token } })
        : await startTestCloud({ env: { PUBLIC_URL: 'https://pay.example.com', METRICS_TOKEN: token } });
      const tokenless = edition === 'listener' ? await startTestListener({ env: { PUBLIC_URL: 'https://pay.example.com' } }) : await startTestCloud({ env: { PUBLIC_URL: 'https://pay.example.com' } });
      const proxy = await startSameHostProxy(running.url, {});
      const bareProxy = await startSameHostProxy(tokenless.url, {});
      try {
        assert.equal(await statusOf(bareProxy.url), 401, 'no token configured: PUBLIC_URL says a proxy fronts it, so loopback proves nothing');
        assert.equal(await statusOf(tokenless.url), 401, 'nor directly from loopback: the same request as the proxy\'s');
        assert.equal(await statusOf(proxy.url), 401);
        assert.equal(await statusOf(proxy.url, { Authorization: `Bearer ${token}` }), 200);
      } finally {
        await proxy.close();
        await bareProxy.close();
        await running.stop();
        await tokenless.stop();
      }
    });
  }
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { METRICS_TOKEN: token } });
  });
  after(() => listener.stop());

  it('answers the bearer token only, from anywhere, loopback included', async () => {
    assert.equal((await fetch(`${listener.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${listener.url}/metrics`, { headers: { Authorization: `Bearer ${token}x` } })).status, 401);
    const ok = await fetch(`${listener.url}/metrics`, { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': '203.0.113.7' } });
    assert.equal(ok.status, 200);
    assert.ok(parse(await ok.text()).has('service_http_requests_total'));
  });

  it('counts MCP sessions and tool calls by tool and outcome', async () => {
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
    try {
      await client.callTool({ name: 'list_supported_assets', arguments: {} });
      const missing = await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: 'inv_missing' } });
      assert.equal(missing.isError, true);
      const families = parse(await (await fetch(`${listener.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).text());
      assert.equal(sample(families, 'service_mcp_sessions'), 1);
      assert.equal(sample(families, 'service_mcp_tool_calls_total', { tool: 'list_supported_assets', outcome: 'ok' }), 1);
      assert.equal(sample(families, 'service_mcp_tool_calls_total', { tool: 'get_invoice_status', outcome: 'error' }), 1);
      assert.equal(sample(families, 'service_http_requests_total', { method: 'POST', route: '/mcp' }) >= 3, true);
    } finally {
      await client.close();
    }
  });

  it('two listeners in one process keep separate counts (a registry each)', async () => {
    const other = await startTestListener();
    try {
      await fetch(`${other.url}/health`);
      const mine = parse(await (await fetch(`${listener.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).text());
      assert.equal(sample(mine, 'service_http_requests_total', { route: '/health' }), 0);
      const theirs = parse(await (await fetch(`${other.url}/metrics`)).text());
      assert.equal(sample(theirs, 'service_http_requests_total', { route: '/health', status: '200' }), 1);
    } finally {
      await other.stop();
    }
  });
});

describe('GET /metrics on Cloud', () => {
  let cloud: RunningCloud;
  before(async () => {
    cloud = await startTestCloud();
  });
  after(() => cloud.stop());

  it('counts invoices and requests by route template, with no merchant, email, key or address as a label', async () => {
    const email = `metrics-${Date.now()}@example.com`;
    const merchant = await signupMerchant(cloud.url, { email, btc_xpub: BIP84_ZPUB, webhook_url: 'https://hooks.example.com/m' });
    const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1_000 }, { 'X-Service-Api-Key': merchant.api_key });
    assert.equal(created.status, 201, created.text);
    const invoice = created.json as { invoice_id: string; receive_address: string };
    assert.equal((await fetch(`${cloud.url}/api/v1/invoice/${invoice.invoice_id}`, { headers: { 'X-Service-Api-Key': merchant.api_key } })).status, 200);

    const text = await (await fetch(`${cloud.url}/metrics`)).text();
    const families = parse(text);
    assert.equal(sample(families, 'service_invoices_created_total', { chain: 'btc', asset: 'BTC' }), 1);
    assert.equal(sample(families, 'service_http_requests_total', { method: 'GET', route: '/api/v1/invoice/:id', status: '200' }), 1);
    assert.equal(sample(families, 'service_http_requests_total', { method: 'POST', route: '/api/v1/signup', status: '201' }), 1);
    assert.equal(sample(families, 'service_invoices', { status: 'pending' }), 1);
    for (const value of [merchant.merchant_id, email, merchant.api_key, merchant.webhook_secret!, invoice.invoice_id, invoice.receive_address]) {
      assert.ok(!text.includes(value), `the exposition never contains ${value}`);
    }
    const forwarded = await fetch(`${cloud.url}/metrics`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    assert.equal(forwarded.status, 401);
  });
});

describe('expiries in service_invoice_transitions_total (SQLite, a hand-moved clock)', () => {
  const merchantId = 'merchant_expiry_metrics';
  const expiresAt = Date.UTC(2026, 5, 1, 12);
  const invoice = (n: number, overrides: Partial<InvoiceRow>): InvoiceRow => ({
    invoice_id: `inv_expiry_metrics_${n}`,
    merchant_id: merchantId,
    chain: 'btc',
    asset: 'BTC',
    network: 'regtest',
    receive_address: `bcrt1qexpirymetrics${n}`,
    child_index: n,
    derivation_path: `m/0/${n}`,
    key_id: 'k1',
    amount_sats: 10_000,
    amount_units: null,
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: expiresAt,
    created_at: expiresAt - 3_600_000,
    updated_at: expiresAt - 3_600_000,
    token_address: null,
    nonce: null,
    amount_usd: null,
    address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    ...overrides,
  });

  it('counts each invoice once, with its chain and asset, whether a read or the sweeper flips it, and a second read or sweep adds nothing', async () => {
    const created = await testDatabases[0]!.create();
    const { db, close } = await created.open();
    const feed = await openStatusFeed('sqlite', { databaseUrl: created.url, db, logger: silentLogger });
    try {
      const metrics = createServiceMetrics();
      const clock = manualClock(expiresAt - 1_000);
      const chains = [btcAdapter, evmAdapter];
      const guards = chains.map((chain) => chain.paymentSeenBeforeExpiry);
      const engine = createInvoiceEngine({ db, clock, logger: silentLogger, chains, feed, metrics });
      const btc = invoice(1, {});
      const usdc = invoice(2, { chain: 'base', asset: 'USDC', network: 'base', receive_address: `0x${'2'.padStart(40, '0')}`, amount_sats: null, amount_units: '25000000', token_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', amount_usd: '25' });
      await insertInvoice(db, btc);
      await insertInvoice(db, usdc);
      const expiredCount = async (labels: Record<string, string> = {}) => sample(parse(await metrics.registry.metrics()), 'service_invoice_transitions_total', { ...labels, status: 'expired' });
      const sweepOnce = async () => {
        // A sweeper sweeps as it starts; stopping it waits for that sweep.
        await startExpirySweeper({ db, feed, clock, logger: silentLogger, guards, metrics }).stop();
      };

      await sweepOnce();
      assert.equal((await engine.get(merchantId, btc.invoice_id)).status, 'pending');
      assert.equal(await expiredCount(), 0, 'nothing has lapsed yet');

      clock.set(expiresAt + 60_000);
      assert.equal((await engine.get(merchantId, btc.invoice_id)).status, 'expired', 'the read flips it');
      assert.equal((await engine.get(merchantId, btc.invoice_id)).status, 'expired');
      assert.equal(await expiredCount({ chain: 'btc', asset: 'BTC' }), 1);
      assert.equal(await expiredCount(), 1, 'the USDC invoice is not read yet, nor swept');

      await sweepOnce();
      assert.equal((await findInvoice(db, merchantId, usdc.invoice_id))!.status, 'expired', 'the sweeper flips the other');
      assert.equal(await expiredCount({ chain: 'base', asset: 'USDC' }), 1);
      await sweepOnce();
      assert.equal((await engine.get(merchantId, usdc.invoice_id)).status, 'expired');
      assert.equal(await expiredCount({ chain: 'btc', asset: 'BTC' }), 1);
      assert.equal(await expiredCount(), 2, 'one count per invoice');
    } finally {
      await feed.close();
      await close();
    }
  });
});
