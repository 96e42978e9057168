import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startListener, type RunningListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, tempSqliteUrl } from '../../helpers/listener.ts';
import { connectWithOAuth, CookieJar, REDIRECT_URL, TestOAuthProvider } from '../../helpers/oauth.ts';

const API_KEY = 'oauth-cimd-test-key-0123456789';

/** A self-signed certificate for cimd.test, made with openssl for this run. */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-cert-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=cimd.test', '-addext', 'subjectAltName=DNS:cimd.test',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

describe('Client ID Metadata Documents, fetched under the webhook URL guard', () => {
  let listener: RunningListener;
  let documents: Server;
  let base: string;
  let fetches = 0;
  before(async () => {
    const tls = selfSignedCertificate();
    documents = createServer(tls, (req, res) => {
      fetches++;
      const url = `${base}${req.url}`;
      if (req.url === '/client.json') {
        res.setHeader('content-type', 'application/json');
        res.setHeader('cache-control', 'max-age=300');
        return res.end(JSON.stringify({ client_id: url, client_name: 'CIMD agent', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
      }
      if (req.url === '/same-host.json' || req.url === '/with-logout.json') {
        res.setHeader('content-type', 'application/json');
        const extra = req.url === '/with-logout.json' ? { post_logout_redirect_uris: ['https://evil.example/'] } : {};
        return res.end(JSON.stringify({ client_id: url, client_name: 'Same-host agent', redirect_uris: [`${base}/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], ...extra }));
      }
      if (req.url === '/big.json') return res.end(JSON.stringify({ client_id: url, client_name: 'x'.repeat(6000), redirect_uris: [REDIRECT_URL] }));
      if (req.url === '/text.json') return res.end('not json at all');
      if (req.url === '/slow.json') return; // never answers
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    base = `https://cimd.test:${(documents.address() as AddressInfo).port}`;
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: tempSqliteUrl(), MERCHANT_BTC_XPUB: BIP84_ZPUB, SERVICE_RATE_LIMIT: 'off', BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, SERVICE_API_KEY: API_KEY }, defaultChains);
    listener = await startListener(config, {
      logger: silentLogger,
      // cimd.test is the local https server; private.test a private address the guard refuses.
      resolve: async (host) => [{ address: host === 'private.test' ? '10.1.2.3' : '127.0.0.1', family: 4 }],
      cimdAllowLoopback: true,
      cimdCa: tls.cert,
    });
  });
  after(async () => {
    await listener?.stop();
    documents?.closeAllConnections();
    await new Promise((resolve) => documents?.close(resolve));
  });

  test('the SDK client registers by its metadata URL, is approved and calls tools; the document is cached', async () => {
    const provider = new TestOAuthProvider(undefined, `${base}/client.json`);
    const before = fetches;
    const { client } = await connectWithOAuth(`${listener.url}/mcp`, API_KEY, provider);
    assert.equal(provider.clientInfo?.client_id, `${base}/client.json`);
    const created = await client.callTool({ name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 2100 } });
    assert.ok(!created.isError, JSON.stringify(created.content));
    assert.equal(fetches - before, 1, 'fetched once, then served from the cache');
    await client.close();
  });

  /** The consent page of an authorization by a metadata-document client. */
  async function consentOf(clientId: string, redirectUri: string): Promise<string> {
    const url = new URL(`${listener.url}/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'invoices:read', resource: `${listener.url}/mcp` }).toString();
    const jar = new CookieJar();
    const toConsent = await jar.fetch(url);
    assert.equal(toConsent.status, 303, await toConsent.clone().text());
    return (await jar.fetch(new URL(toConsent.headers.get('location')!, url))).text();
  }

  test('the consent page: a name from a metadata document on the host the code goes to is vouched for; on another host it is only claimed', async () => {
    const host = new URL(base).host;
    const same = await consentOf(`${base}/same-host.json`, `${base}/callback`);
    assert.match(same, new RegExp(`id="client-name-source">\\(named by its metadata document at ${host.replace('.', '\\.')}\\)<`));
    assert.match(same, new RegExp(`id="redirect-origin">https://${host.replace('.', '\\.')}<`));
    const elsewhere = await consentOf(`${base}/client.json`, REDIRECT_URL);
    assert.match(elsewhere, /id="client-name-source">\(the name the app gives itself, not verified\)</);
    // A document's fields of features not offered are dropped, not refused: the client still works.
    assert.match(await consentOf(`${base}/with-logout.json`, `${base}/callback`), /id="client-name">Same-host agent</);
  });

  for (const [what, clientId] of [
    ['plain http', 'http://cimd.test/client.json'],
    ['a private address', 'https://private.test/client.json'],
    ['oversized', '/big.json'],
    ['not JSON', '/text.json'],
    ['slow (no answer in time)', '/slow.json'],
  ] as const) {
    test(`a metadata document URL that is ${what} registers nothing: an error page, no redirect`, async () => {
      const url = new URL(`${listener.url}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: clientId.startsWith('/') ? `${base}${clientId}` : clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URL,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        scope: 'invoices:read',
        resource: `${listener.url}/mcp`,
      }).toString();
      const started = Date.now();
      const response = await fetch(url, { redirect: 'manual' });
      assert.equal(response.status, 400);
      // Refused by the guard before any connection, not by the 2.5 s fetch timeout.
      if (what === 'a private address') assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
      assert.equal(response.headers.get('location'), null);
      assert.match(await response.text(), /invalid_client/);
    });
  }
});
