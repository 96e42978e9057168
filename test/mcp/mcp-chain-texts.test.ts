import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '../../core/log.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';
import type { ListenerClient } from '../../mcp/listener-client.ts';
import type { McpChain } from '../../mcp/mcp-chain.ts';
import { createServer } from '../../mcp/server.ts';
import { describeStoredInvoice } from '../../mcp/invoice-text.ts';
import { BtcInvoice } from '../../shared/index.ts';

/** Every chain but Arbitrum One: the texts must speak of it only because it is among the chains given. */
const withoutArbitrum = defaultChains.filter((chain) => chain.chain !== 'arbitrum');

async function toolsOf(chains: readonly McpChain[]) {
  const server = createServer({ listener: {} as ListenerClient, chains, updates: { watch: () => () => undefined }, renderQr: () => Buffer.alloc(0), logger: silentLogger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'in-process', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const { tools } = await client.listTools();
    return { tools: new Map(tools.map((tool) => [tool.name, tool.description ?? ''])), instructions: client.getInstructions() ?? '' };
  } finally {
    await client.close();
  }
}

test('the tool descriptions and instructions speak of the chains the server is given, a new one included, and of no other', async () => {
  const { tools, instructions } = await toolsOf(defaultChains);
  assert.match(tools.get('create_invoice')!, /Arbitrum One \(chain "arbitrum"\)/);
  assert.match(tools.get('create_invoice')!, /Bitcoin \(default, chain "btc"\): give amount_sats/);
  assert.match(tools.get('get_invoice_status')!, /Arbitrum One: typically about half a minute/);
  assert.match(tools.get('wait_for_payment')!, /Arbitrum One: typically about half a minute/);
  assert.match(tools.get('list_supported_assets')!, /USD for Base, Ethereum, Polygon and Arbitrum One/);
  assert.match(instructions, /Arbitrum One/);

  const withoutIt = await toolsOf(withoutArbitrum);
  for (const [name, description] of withoutIt.tools) assert.doesNotMatch(description, /Arbitrum|arbitrum/, name);
  assert.doesNotMatch(withoutIt.instructions, /Arbitrum/);
  assert.match(withoutIt.tools.get('list_supported_assets')!, /USD for Base, Ethereum and Polygon/);

  const bitcoinOnly = await toolsOf(defaultChains.slice(0, 1));
  assert.doesNotMatch(bitcoinOnly.tools.get('create_invoice')!, /amount_usd|Base/);
  assert.match(bitcoinOnly.tools.get('list_supported_assets')!, /\(btc, btc-lightning\)/, 'only Bitcoin ids, on-chain and Lightning');
  assert.doesNotMatch(bitcoinOnly.tools.get('wait_for_payment')!, /Base|Ethereum/);
});

test("an invoice's text is what its chain says of it", () => {
  const invoice = BtcInvoice.parse({
    invoice_id: 'inv_1',
    merchant_id: 'm',
    chain: 'btc',
    asset: 'BTC',
    receive_address: 'bc1qexample',
    child_index: 0,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    expires_at: '2030-01-01T01:00:00.000Z',
    created_at: '2030-01-01T00:00:00.000Z',
    updated_at: '2030-01-01T00:00:00.000Z',
    amount_btc: '0.00001000',
    amount_sats: 1000,
    network: 'mainnet',
    memo: null,
    x402_url: null,
  });
  const bitcoin = defaultChains[0]!;
  const told = { ...bitcoin, display: { ...bitcoin.display, pricedAmount: () => 'a thousand sats', networkOf: () => ({ name: 'Testchain', note: null }) } };
  assert.match(describeStoredInvoice([told], invoice), /^Amount a thousand sats on Testchain to bc1qexample\.$/m);
});
