import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import type { RunningListener } from '../../../listener/app.ts';
import { testAccountKey } from '../../helpers/btc-chain.ts';
import { hashApiKey } from '../../../cloud/keys/api-keys.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { open, postForm, signIn } from '../../helpers/dashboard.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { createLogger } from '../../../core/log.ts';
import { assertDiscovery, connectWithOAuth } from '../../helpers/oauth.ts';

const initializeBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const mcpPost = (url: string, token: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: initializeBody });

for (const database of testDatabases) {
  describe(`OAuth on Cloud (${database.name})`, { skip: database.skip }, () => {
    const running: { stop(): Promise<void> }[] = [];
    const drops: (() => Promise<void>)[] = [];
    after(async () => {
      for (const one of running.reverse()) await one.stop();
      for (const drop of drops) await drop();
    });

    test('SDK client with a merchant key; tenant isolation; revoke on Connected apps; tokens bound to their server', async () => {
      const created = await database.create();
      drops.push(() => created.drop());
      const cloud: RunningCloud = await startTestCloud({ env: { DATABASE_URL: created.url } });
      running.push(cloud);
      const mcpUrl = `${cloud.url}/api/v1/mcp`;
      const a = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(11) });
      const b = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(12) });
      const bInvoice = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'btc', amount_sats: 4242 }, { 'x-service-api-key': b.api_key });
      assert.equal(bInvoice.status, 201, bInvoice.text);

      const { client, provider } = await connectWithOAuth(mcpUrl, a.api_key);
      const mine = await client.callTool({ name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 1000 } });
      assert.ok(!mine.isError, JSON.stringify(mine.content));
      // Merchant A's token sees none of B's invoices, through any tool or resource.
      const theirs = await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: bInvoice.json.invoice_id } });
      assert.equal(theirs.isError, true);
      assert.match(JSON.stringify(theirs.content), /not_found/);
      const list = await client.callTool({ name: 'list_invoices', arguments: {} });
      assert.ok(!JSON.stringify(list.structuredContent).includes(bInvoice.json.invoice_id));
      assert.ok(JSON.stringify(list.structuredContent).includes((mine.structuredContent as { invoice: { invoice_id: string } }).invoice.invoice_id));
      await assert.rejects(client.readResource({ uri: `invoice://${bInvoice.json.invoice_id}` }));

      const token = provider.savedTokens!.access_token;
      if (database.name === 'postgres') {
        // A second instance on the same database (behind one public URL) accepts the token.
        const second = await startTestCloud({ env: { DATABASE_URL: created.url, PUBLIC_URL: cloud.url } });
        running.push(second);
        const there = await mcpPost(`${second.url}/api/v1/mcp`, token);
        assert.equal(there.status, 200, await there.clone().text());
      }

      // Cloud's token is not the listener's, and the other way round.
      const listener: RunningListener = await startTestListener({ env: { SERVICE_API_KEY: 'listener-key-for-oauth-cloud-test' } });
      running.push(listener);
      const atListener = await mcpPost(`${listener.url}/mcp`, token);
      assert.equal(atListener.status, 401);
      assert.match(atListener.headers.get('www-authenticate')!, /error="invalid_token"/);
      const listenerSide = await connectWithOAuth(`${listener.url}/mcp`, 'listener-key-for-oauth-cloud-test');
      const atCloud = await mcpPost(mcpUrl, listenerSide.provider.savedTokens!.access_token);
      assert.equal(atCloud.status, 401);
      await listenerSide.client.close();

      // Connected apps: the grant is listed for A only, and Revoke ends it at once.
      const session = await signIn(cloud.url, a.api_key);
      const page = await (await open(cloud.url, '/dashboard/apps', session)).text();
      assert.match(page, /Test agent/);
      assert.match(page, /invoices:read/);
      const bPage = await (await open(cloud.url, '/dashboard/apps', await signIn(cloud.url, b.api_key))).text();
      assert.doesNotMatch(bPage, /Test agent/);
      const grantId = /name="grant_id" value="([^"]+)"/.exec(page)![1]!;
      const revoked = await postForm(cloud.url, '/dashboard/apps/revoke', session, page, { grant_id: grantId });
      assert.equal(revoked.status, 200);
      assert.doesNotMatch(await revoked.text(), /Test agent/);
      const after = await mcpPost(mcpUrl, token);
      assert.equal(after.status, 401);
      assert.match(after.headers.get('www-authenticate')!, /error="invalid_token"/);
      await client.close().catch(() => undefined);
    });
  });
}

describe('OAuth discovery on Cloud', () => {
  test('no credentials: 401 with the Bearer challenge naming the metadata; the metadata names the endpoint and the issuer', async () => {
    const cloud = await startTestCloud();
    try {
      const server = await assertDiscovery(cloud.url, '/api/v1/mcp');
      assert.equal(server.registration_endpoint, `${cloud.url}/oauth/register`);
    } finally {
      await cloud.stop();
    }
  });
});

describe('OAuth grants die with the key that approved them (Cloud)', () => {
  let cloud: RunningCloud;
  after(async () => {
    await cloud?.stop();
  });

  const refresh = (clientId: string, refreshToken: string) =>
    fetch(`${cloud.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource: `${cloud.url}/api/v1/mcp` }).toString() });
  const grantRows = async (keyHash: string) =>
    (await cloud.database.db.selectFrom('oauth_records').select('grant_id').where('model', '=', 'Grant').where('key_id', '=', keyHash).execute()).length;
  const tokenRows = async () => (await cloud.database.db.selectFrom('oauth_records').select('model').where('model', 'in', ['AccessToken', 'RefreshToken']).execute()).length;

  test('revoking the key on the dashboard ends its grants: the token is refused, the refresh fails, the rows are gone; the other key\'s grant lives', async () => {
    cloud = await startTestCloud();
    const mcpUrl = `${cloud.url}/api/v1/mcp`;
    const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(15) });
    const session = await signIn(cloud.url, merchant.api_key);
    const keysPage = await (await open(cloud.url, '/dashboard/keys', session)).text();
    const issued = await (await postForm(cloud.url, '/dashboard/keys', session, keysPage, { label: 'agent' })).text();
    const agentKey = /(sk_[A-Za-z0-9_-]{43})/.exec(issued)![1]!;

    const leaked = await connectWithOAuth(mcpUrl, agentKey);
    const kept = await connectWithOAuth(mcpUrl, merchant.api_key);
    const leakedTokens = leaked.provider.savedTokens!;
    assert.equal((await mcpPost(mcpUrl, leakedTokens.access_token)).status, 200);
    assert.equal(await grantRows(hashApiKey(agentKey)), 1);
    const tokensBefore = await tokenRows();

    const page = await (await open(cloud.url, '/dashboard/keys', session)).text();
    const revoked = await postForm(cloud.url, '/dashboard/keys/revoke', session, page, { prefix: agentKey.slice(0, 12) });
    assert.equal(revoked.status, 200);
    const refused = await mcpPost(mcpUrl, leakedTokens.access_token);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /error="invalid_token"/);
    const refreshed = await refresh(leaked.provider.clientInfo!.client_id, leakedTokens.refresh_token!);
    assert.equal(refreshed.status, 400);
    assert.equal(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
    assert.equal(await grantRows(hashApiKey(agentKey)), 0);
    assert.equal(await tokenRows(), tokensBefore - 2, "the revoked grant's access and refresh token are deleted");

    // The grant approved with the merchant's other key is untouched.
    assert.equal((await mcpPost(mcpUrl, kept.provider.savedTokens!.access_token)).status, 200);
    const keptRefresh = await refresh(kept.provider.clientInfo!.client_id, kept.provider.savedTokens!.refresh_token!);
    assert.equal(keptRefresh.status, 200, await keptRefresh.clone().text());
    await leaked.client.close().catch(() => undefined);
    await kept.client.close();
  });

  test('a key revoked where the grants were not removed (another instance, mid-flight): the refresh and the token check it anyway', async () => {
    const mcpUrl = `${cloud.url}/api/v1/mcp`;
    const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(16) });
    const connected = await connectWithOAuth(mcpUrl, merchant.api_key);
    const tokens = connected.provider.savedTokens!;
    await cloud.database.db.updateTable('cloud_api_keys').set({ revoked: 1 }).where('key_hash', '=', hashApiKey(merchant.api_key)).execute();
    assert.equal(await grantRows(hashApiKey(merchant.api_key)), 1, 'the grant row is still there');
    assert.equal((await mcpPost(mcpUrl, tokens.access_token)).status, 401);
    const refreshed = await refresh(connected.provider.clientInfo!.client_id, tokens.refresh_token!);
    assert.equal(refreshed.status, 400);
    assert.equal(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
    await connected.client.close().catch(() => undefined);
  });
});

describe('OAuth on Cloud keeps keys and tokens out of the logs', () => {
  test('a whole OAuth connection logs neither the merchant key nor a token', async () => {
    const lines: string[] = [];
    const cloud = await startTestCloud({ deps: { logger: createLogger({ write: (line) => lines.push(line) }) } });
    try {
      const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(14) });
      const { client, provider } = await connectWithOAuth(`${cloud.url}/api/v1/mcp`, merchant.api_key);
      await client.callTool({ name: 'list_invoices', arguments: {} });
      await client.close();
      assert.ok(lines.length > 5, 'requests were logged');
      const log = lines.join('\n');
      for (const secret of [merchant.api_key, provider.savedTokens!.access_token, provider.savedTokens!.refresh_token!]) assert.ok(!log.includes(secret));
    } finally {
      await cloud.stop();
    }
  });
});

describe('Cloud scoped API keys, on HTTP and MCP', () => {
  let cloud: RunningCloud;
  after(async () => {
    await cloud?.stop();
  });

  test('read-only and create-only keys do only that; bad requests get invalid_key_request; scoped keys cannot make keys', async () => {
    cloud = await startTestCloud();
    const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(13) });
    const full = { 'x-service-api-key': merchant.api_key };
    const issue = (body: unknown, headers = full) => postJson(`${cloud.url}/api/v1/keys`, body, headers);
    const read = await issue({ label: 'reader', scopes: ['invoices:read'] });
    assert.equal(read.status, 201, read.text);
    assert.deepEqual(read.json.scopes, ['invoices:read']);
    const create = await issue({ label: 'creator', scopes: ['invoices:write'] });
    assert.equal(create.status, 201);
    for (const bad of [{ label: '' }, { label: 'x', scopes: [] }, { label: 'x', scopes: ['invoices:delete'] }, { label: 'x', scopes: 'invoices:read' }]) {
      const refused = await issue(bad);
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.equal(refused.json.error.code, 'invalid_key_request');
    }
    const readKey = { 'x-service-api-key': read.json.api_key };
    const createKey = { 'x-service-api-key': create.json.api_key };
    assert.equal((await issue({ label: 'escalate' }, readKey)).json.error.code, 'insufficient_scope');

    // HTTP: create-only creates but cannot read; read-only reads but cannot create or see the account.
    const invoice = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'btc', amount_sats: 777 }, createKey);
    assert.equal(invoice.status, 201, invoice.text);
    const readBack = await fetch(`${cloud.url}/api/v1/invoice/${invoice.json.invoice_id}`, { headers: createKey });
    assert.equal(readBack.status, 403);
    assert.equal(((await readBack.json()) as { error: { code: string; message: string } }).error.code, 'insufficient_scope');
    assert.equal((await fetch(`${cloud.url}/api/v1/invoice/${invoice.json.invoice_id}`, { headers: readKey })).status, 200);
    assert.equal((await fetch(`${cloud.url}/api/v1/invoices`, { headers: readKey })).status, 200);
    const readCreate = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'btc', amount_sats: 1 }, readKey);
    assert.equal(readCreate.status, 403);
    assert.match(readCreate.json.error.message, /invoices:write/);
    assert.equal((await fetch(`${cloud.url}/api/v1/me`, { headers: readKey })).status, 403);
    const me = (await (await fetch(`${cloud.url}/api/v1/me`, { headers: full })).json()) as { api_keys: { label: string; scopes: string[] | null }[] };
    assert.deepEqual(me.api_keys.map((k) => [k.label, k.scopes]), [['default', null], ['reader', ['invoices:read']], ['creator', ['invoices:write']]]);

    // MCP: the same scopes per tool.
    const mcpUrl = `${cloud.url}/api/v1/mcp`;
    const call = async (headers: Record<string, string>, name: string, args: Record<string, unknown>) => {
      const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
      const init = await fetch(mcpUrl, { method: 'POST', headers: base, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
      await init.arrayBuffer();
      const session = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      return fetch(mcpUrl, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }) });
    };
    const mcpCreateByReader = await call(readKey, 'create_invoice', { chain: 'btc', amount_sats: 5 });
    assert.equal(mcpCreateByReader.status, 403);
    assert.equal(mcpCreateByReader.headers.get('www-authenticate'), null, 'a key is never met with an OAuth challenge');
    assert.equal((await call(readKey, 'get_invoice_status', { invoice_id: invoice.json.invoice_id })).status, 200);
    assert.equal((await call(createKey, 'get_invoice_status', { invoice_id: invoice.json.invoice_id })).status, 403);
    assert.equal((await call(createKey, 'create_invoice', { chain: 'btc', amount_sats: 5 })).status, 200);

    // Scoped keys do not sign in to the dashboard.
    const form = await (await import('../../helpers/dashboard.ts')).loginForm(cloud.url);
    const signInAttempt = await fetch(`${cloud.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: form.csrf, api_key: read.json.api_key }),
    });
    assert.equal(signInAttempt.status, 401);
  });
});
