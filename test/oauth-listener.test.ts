import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningListener } from '../listener/app.ts';
import { startTestListener } from './support/listener.ts';
import { connectWithOAuth } from './support/oauth.ts';

const API_KEY = 'oauth-listener-test-key-0123456789';

describe('OAuth on the listener, with the MCP SDK client', () => {
  let listener: RunningListener;
  let mcpUrl: string;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
    mcpUrl = `${listener.url}/mcp`;
  });
  after(async () => {
    await listener?.stop();
  });

  test('discovery from the 401, registration, consent with the key, code exchange, tool calls', async () => {
    const { client, provider } = await connectWithOAuth(mcpUrl, API_KEY);
    const created = await client.callTool({ name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 1500 } });
    assert.ok(!created.isError, JSON.stringify(created.content));
    assert.ok(provider.savedTokens?.refresh_token);
    await client.close();
  });
});
