import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { silentLogger } from '../../../core/log.ts';
import { startListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { postJson } from '../../helpers/listener.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

test('EVM: invoice.payment_seen once an agreed transfer is recorded below the required depth, only for the invoice it pays at a shared address; invoice.partial for a part payment', { timeout: 120_000 }, async () => {
  const chain = await startEvmTestChain();
  const second = await startRpcProxy(chain.anvil.url);
  const config = loadConfig(
    {
      PORT: '0',
      DATABASE_URL: chain.databaseUrl,
      SERVICE_RATE_LIMIT: 'off',
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address},usdt:${chain.usdt.address}`,
      BASE_RPC_URL: `${chain.anvil.url},${second.url}`,
      BASE_CHAIN_ID: String(chain.anvil.chainId),
      BASE_CONFIRMATIONS: '10',
      BASE_FINALITY: 'count',
      MERCHANT_WEBHOOK_EVENTS: 'invoice.payment_seen,invoice.partial',
    },
    defaultChains,
  );
  const listener = await startListener(config, { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } });
  const post = async (body: unknown) => (await postJson(`${listener.url}/invoice`, body)).json;
  const read = async (id: string) => (await (await fetch(`${listener.url}/invoice/${id}`)).json()) as { status: string };
  const events = async () =>
    (await listener.database.db.selectFrom('events').select(['type', 'payload']).orderBy('seq').execute()).map((row) => ({ type: row.type, ...JSON.parse(row.payload) }));
  const health = async () => (await fetch(`${listener.url}/health`)).json();
  try {
    const paid = await post({ chain: 'base', amount_usd: 7, asset: 'usdt' });
    const neighbour = await post({ chain: 'base', amount_usd: 8, asset: 'usdt' });
    const part = await post({ chain: 'base', amount_usd: 20 });
    assert.equal(paid.receive_address, neighbour.receive_address, 'one shared fixed address');

    await chain.usdt.transfer(paid.receive_address, BigInt(paid.amount_usdc_units));
    await chain.usdc.transfer(part.receive_address, 5_000_000n);
    await chain.anvil.mine(1);
    const seen = await waitForWatcher('both transfers seen', events, (list) => list.filter((event) => event.type === 'invoice.payment_seen').length >= 2 && list.some((event) => event.type === 'invoice.partial'), { watcher: health });
    assert.equal((await read(paid.invoice_id)).status, 'pending', 'below the required depth');
    const paidSeen = seen.find((event) => event.type === 'invoice.payment_seen' && event.invoice_id === paid.invoice_id);
    assert.equal(paidSeen?.amount_paid, paid.amount_usdc);
    assert.equal(seen.find((event) => event.type === 'invoice.partial')?.amount_paid, '5.000000');

    await chain.anvil.mine(12);
    await waitForWatcher('the exact payment confirmed', () => read(paid.invoice_id), (invoice) => invoice.status === 'confirmed', { watcher: health });
    const all = await events();
    const summary = all.map((event) => [event.type, event.invoice_id]);
    assert.deepEqual(summary.filter(([type]) => type === 'invoice.payment_seen').map(([, id]) => id).sort(), [paid.invoice_id, part.invoice_id].sort(), 'once each, never for the neighbour at the same address');
    assert.deepEqual(summary.filter(([type]) => type === 'invoice.partial'), [['invoice.partial', part.invoice_id]]);
    assert.ok(!summary.some(([, id]) => id === neighbour.invoice_id), 'nothing for the invoice no transfer paid');
  } finally {
    await listener.stop();
    await second.close();
    await chain.close();
  }
});
