import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'eth-url-parser';
import { arbitrum } from '../../../core/evm/chains/arbitrum.ts';
import { startListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { startAnvil } from '../../../sandbox/anvil.ts';
import { deployTestToken } from '../../../sandbox/test-token.ts';
import { Health } from '../../../shared/index.ts';
import { ACCOUNT_XPUB } from '../../helpers/evm-chain.ts';
import { postJson, tempSqliteUrl } from '../../helpers/listener.ts';

/**
 * Arbitrum One comes in through its one definition: a listener given only that definition, on a
 * local node with Arbitrum's chain id, creates an invoice on it, sees it paid and confirms it.
 */
test('Arbitrum One, from its definition alone: an invoice is created on chain id 42161, paid, and confirmed', { timeout: 120_000 }, async () => {
  const node = await startAnvil({ chainId: arbitrum.spec.mainnetChainId });
  try {
    const usdc = await deployTestToken(node, 'USDC', { fundAccounts: 1 });
    const config = loadConfig(
      {
        PORT: '0',
        DATABASE_URL: tempSqliteUrl(),
        SERVICE_RATE_LIMIT: 'off',
        MERCHANT_ARBITRUM_XPUB: ACCOUNT_XPUB,
        ARBITRUM_RPC_URL: node.url,
        ARBITRUM_MIN_SOURCES: '1',
        ARBITRUM_TOKENS: `usdc:${usdc.address}`,
        ARBITRUM_CONFIRMATIONS: '2',
        // The local node mines on demand.
        ARBITRUM_BLOCK_TIME_MS: '0',
      },
      [arbitrum],
    );
    assert.deepEqual(
      config.chains.map(({ definition, settings }) => [definition.chain, (settings as { chainId: number }).chainId]),
      [['arbitrum', 42161]],
    );
    const listener = await startListener(config, { logger: silentLogger });
    try {
      const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.deepEqual(health.enabled_assets, ['usdc-arbitrum']);
      assert.deepEqual(Object.keys(health.evm_chains ?? {}), ['arbitrum']);

      const created = await postJson(`${listener.url}/invoice`, { chain: 'arbitrum', amount_usd: 2 });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.chain, 'arbitrum');
      assert.equal(created.json.asset, 'USDC');
      assert.equal(parse(created.json.qr_uri).chain_id, '42161', 'the payer is asked for a payment on Arbitrum One');

      const paid = await usdc.transfer(created.json.receive_address, 2_000_000n);
      const watch = listener.watches.get('arbitrum')!;
      await watch.syncOnce();
      const seen = await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json();
      assert.equal(seen.status, 'pending', 'one confirmation of two');

      await node.mine(1);
      await watch.syncOnce();
      const confirmed = await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json();
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, paid.txHash);
      assert.equal(confirmed.chain, 'arbitrum');

      const view = await (await fetch(`${listener.url}/checkout/${created.json.invoice_id}`)).json();
      assert.equal(view.tx_url, `https://arbiscan.io/tx/${paid.txHash}`, 'the checkout page links the payment on Arbitrum\'s explorer');
    } finally {
      await listener.stop();
    }
  } finally {
    await node.stop();
  }
});
