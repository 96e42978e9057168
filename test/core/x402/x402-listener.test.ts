import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { verifyWebhook } from '../../../core/webhooks/signature.ts';
import { BaseXpubInvoiceCreated, Health, StoredInvoice, X402PaymentRequired } from '../../../shared/index.ts';
import { ACCOUNT_XPUB, evmTestChains, settingsFor, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { startScriptedReceiver } from '../../helpers/scripted-receiver.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { invoiceReaching, waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { postJson } from '../../helpers/listener.ts';

const WEBHOOK_SECRET = 'whsec_x402_listener_test_secret';

for (const [index, chainName] of evmTestChains.entries()) {
  // Each chain on another database in turn, so both stores take the settlement lock.
  const kind = testDatabases[index % testDatabases.length]!;
  test(`x402 on ${chainName} (${kind.name}): the official client pays an xpub USDC invoice with one call; it confirms through the watcher and the signed webhook follows`, { skip: kind.skip }, async () => {
    const chain = await startEvmTestChain(kind, chainName);
    const settler = randomAccount();
    const payer = randomAccount();
    const hooks = await startScriptedReceiver(() => ({ status: 200, body: '{}' }));
    await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
    await chain.usdc.transfer(payer.account.address, 50_000_000n, 1);
    const config = loadConfig(
      settingsFor(chainName, {
        PORT: '0',
        DATABASE_URL: chain.databaseUrl,
        SERVICE_RATE_LIMIT: 'off',
        MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
        BASE_TOKENS: `usdc:${chain.usdc.address}`,
        BASE_RPC_URL: chain.anvil.url,
        // One local node, declared trusted as an operator declares its own.
        BASE_MIN_SOURCES: '1',
        BASE_CHAIN_ID: String(chain.anvil.chainId),
        BASE_CONFIRMATIONS: '2',
        BASE_FINALITY: 'count',
        X402_SETTLER_KEY: settler.key,
        MERCHANT_WEBHOOK_URL: hooks.url,
        MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      }), defaultChains);
    const listener = await startListener(config, { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } });
    try {
      const created = await postJson(`${listener.url}/invoice`, { chain: chainName, amount_usd: 12.5 });
      assert.equal(created.status, 201, created.text);
      const invoice = BaseXpubInvoiceCreated.parse(created.json);
      assert.equal(invoice.x402_url, `${listener.url}/x402/${invoice.invoice_id}`);
      assert.equal(StoredInvoice.parse(await (await fetch(`${listener.url}/invoice/${invoice.invoice_id}`)).json()).x402_url, invoice.x402_url);
      assert.equal((await (await fetch(`${listener.url}/checkout/${invoice.invoice_id}`)).json()).x402_url, invoice.x402_url, 'the checkout view links it too');

      // Unpaid: 402, PAYMENT-REQUIRED as x402 v2 defines it, the body the same object.
      const unpaid = await fetch(invoice.x402_url!);
      assert.equal(unpaid.status, 402);
      const required = decodePaymentRequiredHeader(unpaid.headers.get('PAYMENT-REQUIRED')!);
      assert.deepEqual(await unpaid.json(), required);
      X402PaymentRequired.parse(required);
      const network = `eip155:${chain.anvil.chainId}` as const;
      assert.equal(required.x402Version, 2);
      assert.equal(required.resource.url, invoice.x402_url);
      assert.equal(required.accepts.length, 1);
      const [offer] = required.accepts;
      assert.deepEqual({ ...offer, maxTimeoutSeconds: undefined }, {
        scheme: 'exact',
        network,
        amount: '12500000',
        asset: chain.usdc.address,
        payTo: invoice.receive_address,
        maxTimeoutSeconds: undefined,
        extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
      });
      assert.ok(offer.maxTimeoutSeconds > 0 && offer.maxTimeoutSeconds <= (Date.parse(invoice.expires_at) - Date.now()) / 1000 - 30 + 1, 'never past the invoice, less the clock skew');

      // One call of the official client: 402, sign, retry, 200 with PAYMENT-RESPONSE once mined.
      const agent = x402Agent(payer.key, { network, asset: chain.usdc.address });
      const paid = await agent.pay(invoice.x402_url!);
      assert.equal(paid.status, 200, await paid.clone().text());
      const receipt = decodePaymentResponseHeader(paid.headers.get('PAYMENT-RESPONSE')!);
      assert.equal(receipt.success, true);
      assert.equal(receipt.network, network);
      assert.equal(receipt.payer, payer.account.address);
      assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
      const body = StoredInvoice.parse(await paid.json());
      assert.equal(body.invoice_id, invoice.invoice_id);
      assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 12_500_000n, 'the payer paid the invoice address itself');
      assert.equal(await chain.usdc.balanceOf(settler.account.address), 0n, 'the settler never holds the tokens');

      // The watcher confirms it like any transfer, and the webhook follows.
      await chain.anvil.mine(1);
      const confirmed = await invoiceReaching(listener.url, invoice.invoice_id, 'confirmed');
      assert.equal(confirmed.tx_hash, receipt.transaction);
      assert.equal(confirmed.x402_url, null, 'a paid invoice has no x402 URL');
      assert.equal((await (await fetch(`${listener.url}/checkout/${invoice.invoice_id}`)).json()).x402_url, null);
      const hook = await waitForWatcher('the invoice.confirmed webhook', () => hooks.requests.find((r) => r.body.toString().includes(invoice.invoice_id)), Boolean, {
        watcher: async () => (await fetch(`${listener.url}/health`)).json(),
      });
      assert.deepEqual(verifyWebhook(hook!.body, hook!.headers, WEBHOOK_SECRET).ok, true);
      assert.equal(JSON.parse(hook!.body.toString()).event, 'invoice.confirmed');

      // Paid: 409 with the envelope; the same payload again answers the first answer, and moves nothing.
      const again = await fetch(invoice.x402_url!);
      assert.equal(again.status, 409);
      assert.equal(((await again.json()) as { error: { code: string } }).error.code, 'invoice_paid');
      const before = await chain.usdc.balanceOf(payer.account.address);
      const replay = await fetch(invoice.x402_url!, { headers: { 'PAYMENT-SIGNATURE': agent.sent[0]! } });
      assert.equal(replay.status, 200);
      assert.equal(decodePaymentResponseHeader(replay.headers.get('PAYMENT-RESPONSE')!).transaction, receipt.transaction);
      assert.equal(await chain.usdc.balanceOf(payer.account.address), before);

      const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.equal(health.x402?.chains[chainName]?.settlement, 'settler');
      assert.equal(health.x402?.chains[chainName]?.settler_address, settler.account.address);
      assert.equal(health.x402?.chains[chainName]?.warning, null);
      assert.equal(health.x402?.unseen_settlements, 0);
      // A settler key running out of gas is told before payments start failing.
      await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x1']);
      const low = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.match(low.x402?.chains[chainName]?.warning ?? '', new RegExp(`the settler ${settler.account.address} holds .* top it up`));
      assert.equal(low.x402?.chains[chainName]?.settler_balance_wei, '1');
    } finally {
      await listener.stop({ graceMs: 0 });
      await hooks.close();
      await chain.close();
    }
  });
}
