import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { RunningCloud } from '../cloud/cloud-app.ts';
import type { RunningListener } from '../listener/app.ts';
import { testAccountKey } from './support/btc-chain.ts';
import { postJson, startTestListener } from './support/listener.ts';
import { signupMerchant, startTestCloud } from './support/cloud.ts';
import { open, postForm, signIn } from './support/dashboard.ts';
import { testDatabases } from './support/databases.ts';
import { connectWithOAuth } from './support/oauth.ts';

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
