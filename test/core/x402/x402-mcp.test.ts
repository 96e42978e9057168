import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { createListenerClient } from '../../../mcp/listener-client.ts';
import { X402PaymentRequired } from '../../../shared/index.ts';
import { FIXED_ADDRESS, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { invoiceReaching } from '../../helpers/wait-for-watcher.ts';

type ToolResult = { structuredContent: { invoice: { invoice_id: string; x402_url: string | null }; x402?: unknown }; content: Array<{ type: string; text?: string }> };

test('x402 over MCP: create_invoice (fixed-address USDC) carries x402_url and the requirements and tells the model another agent can pay with an x402 client; the official client pays it; get_invoice_status and the invoice resource follow', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const proxy = await startRpcProxy(chain.anvil.url);
  const settler = randomAccount();
  const payer = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  await chain.usdc.transfer(payer.account.address, 50_000_000n, 1);
  const listener = await startListener(
    loadConfig({
      PORT: '0',
      DATABASE_URL: chain.databaseUrl,
      SERVICE_RATE_LIMIT: 'off',
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
      // Fixed-address payments confirm on two sources' word.
      BASE_RPC_URL: `${chain.anvil.url},${proxy.url}`,
      BASE_CHAIN_ID: String(chain.anvil.chainId),
      BASE_CONFIRMATIONS: '2',
      BASE_FINALITY: 'count',
      X402_SETTLER_KEY: settler.key,
    }, defaultChains),
    { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } },
  );
  const client = new Client({ name: 'x402-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
    const created = (await client.callTool({ name: 'create_invoice', arguments: { chain: 'base', amount_usd: 4.2 } })) as unknown as ToolResult;
    const { invoice } = created.structuredContent;
    assert.equal(invoice.x402_url, `${listener.url}/x402/${invoice.invoice_id}`);
    const required = X402PaymentRequired.parse(created.structuredContent.x402);
    assert.equal(required.accepts[0]!.payTo, FIXED_ADDRESS);
    assert.equal(required.accepts[0]!.amount, String((await (await fetch(`${listener.url}/invoice/${invoice.invoice_id}`)).json()).amount_usdc_units));
    const text = created.content.find((item) => item.type === 'text')!.text!;
    assert.match(text, /Another agent can pay this invoice with an x402 client/);
    assert.ok(text.includes(invoice.x402_url!));

    const resource = await client.readResource({ uri: `invoice://${invoice.invoice_id}` });
    assert.equal(resource.contents.length, 2);
    assert.deepEqual(JSON.parse(String((resource.contents[1] as { text: string }).text)), required);

    // The stdio server's HTTP client reads the same requirements off the public x402 URL.
    const overHttp = createListenerClient({ baseUrl: listener.url, apiKey: undefined, fetch, timeoutMs: 5_000, logger: silentLogger });
    assert.deepEqual(await overHttp.x402Requirements(invoice.invoice_id), required);

    const agent = x402Agent(payer.key, { network: required.accepts[0]!.network as `${string}:${string}`, asset: chain.usdc.address });
    const paid = await agent.pay(invoice.x402_url!);
    assert.equal(paid.status, 200, await paid.clone().text());
    await chain.anvil.mine(1);
    await invoiceReaching(listener.url, invoice.invoice_id, 'confirmed');
    const status = (await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoice.invoice_id } })) as unknown as ToolResult;
    assert.equal(status.structuredContent.invoice.x402_url, null);
    assert.equal(status.structuredContent.x402, undefined);
    assert.doesNotMatch(status.content[0]!.text!, /x402 client/);
  } finally {
    await client.close();
    await listener.stop({ graceMs: 0 });
    await proxy.close();
    await chain.close();
  }
});
