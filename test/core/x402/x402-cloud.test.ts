import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HDNodeWallet, Wallet } from 'ethers';
import { ACCOUNT_PATH } from '../../../core/evm/keys.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { startLocalEvm } from '../../../sandbox/local-evm.ts';
import { CloudHealth } from '../../../shared/index.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, handSignedPayment, randomAccount, x402Agent, type Requirements } from '../../helpers/x402-agent.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { postJson } from '../../helpers/listener.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { testDatabases } from '../../helpers/databases.ts';

const newXpub = () => HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;

for (const kind of testDatabases) {
  test(`x402 on Cloud (${kind.name}): xpub and fixed-address invoices paid by the official client confirm through the watcher; merchant A's invoice cannot be paid to B's address, and B's key gives nothing on A's invoice`, { skip: kind.skip }, async () => {
    const database = await kind.create();
    const evm = await startLocalEvm({ chains: defaultChains });
    const proxy = await startRpcProxy(evm.anvil.url);
    const settler = randomAccount();
    const payer = randomAccount();
    await evm.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
    await evm.tokens.usdc.transfer(payer.account.address, 100_000_000n, 0);
    let cloud: RunningCloud | undefined;
    try {
      const { MERCHANT_EVM_XPUB: _x, MERCHANT_EVM_ADDRESS: _a, ...chainEnv } = evm.env;
      cloud = await startTestCloud({
        env: { ...chainEnv, DATABASE_URL: database.url, BASE_RPC_URL: `${evm.anvil.url},${proxy.url}`, CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off', X402_SETTLER_KEY: settler.key },
        deps: { leaderRetryMs: 100, chainWatch: { tuning: { evm: { pollIntervalMs: 100 } }, refreshMs: 100 } },
      });
      const a = await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', xpub: newXpub() }] });
      const b = await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', xpub: newXpub() }] });
      const c = await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', address: Wallet.createRandom().address }] });
      const create = async (merchant: { api_key: string }, amount: number) => {
        const created = await postJson(`${cloud!.url}/api/v1/invoice`, { chain: 'base', amount_usd: amount }, { 'X-Service-Api-Key': merchant.api_key });
        assert.equal(created.status, 201, created.text);
        return created.json as { invoice_id: string; receive_address: string; x402_url: string | null; mode?: string };
      };
      const ofA = await create(a, 7);
      const ofB = await create(b, 7);
      assert.equal(ofA.x402_url, `${cloud.url}/api/v1/x402/${ofA.invoice_id}`);

      // A's requirements pay A's own address; a payload written for B's address is refused and moves nothing.
      const unpaid = await fetch(ofA.x402_url!);
      assert.equal(unpaid.status, 402);
      const requirements = decodePaymentRequiredHeader(unpaid.headers.get('PAYMENT-REQUIRED')!).accepts[0] as Requirements;
      assert.equal(requirements.payTo, ofA.receive_address);
      const toB = await fetch(ofA.x402_url!, { headers: { 'PAYMENT-SIGNATURE': await handSignedPayment(payer.key, { ...requirements, payTo: ofB.receive_address }) } });
      assert.equal(toB.status, 402);
      assert.equal(((await toB.json()) as { error: { reason: string } }).error.reason, 'invalid_exact_evm_recipient_mismatch');
      assert.equal(await evm.tokens.usdc.balanceOf(ofB.receive_address), 0n);
      assert.equal((await getJson(`${cloud.url}/api/v1/invoice/${ofA.invoice_id}`, { 'X-Service-Api-Key': b.api_key })).status, 404, "B's key reads nothing of A's invoice");

      // Both modes paid with one call each, confirmed by the watcher.
      const agent = x402Agent(payer.key, { network: `eip155:${evm.anvil.chainId}`, asset: evm.tokens.usdc.address });
      const fixed = await create(c, 9);
      assert.equal(fixed.mode, 'fixed-address');
      for (const [merchant, invoice] of [[a, ofA], [c, fixed]] as const) {
        const paid = await agent.pay(invoice.x402_url!);
        assert.equal(paid.status, 200, await paid.clone().text());
        assert.equal(decodePaymentResponseHeader(paid.headers.get('PAYMENT-RESPONSE')!).payer, payer.account.address);
        await evm.anvil.mine(1);
        const confirmed = await waitForWatcher(
          `invoice ${invoice.invoice_id} confirmed`,
          async () => (await getJson(`${cloud!.url}/api/v1/invoice/${invoice.invoice_id}`, { 'X-Service-Api-Key': merchant.api_key })).json,
          (json) => json.status === 'confirmed',
          { watcher: () => cloud!.watcherStates(), timeoutMs: 30_000 },
        );
        assert.equal(confirmed.x402_url, null);
      }
      assert.equal((await getJson(`${cloud.url}/api/v1/invoice/${ofB.invoice_id}`, { 'X-Service-Api-Key': b.api_key })).json.status, 'pending', "B's invoice is untouched");
      const health = CloudHealth.parse((await getJson(`${cloud.url}/api/v1/health`)).json);
      assert.equal(health.x402?.chains.base?.settler_address, settler.account.address);
    } finally {
      await cloud?.stop();
      await proxy.close();
      await evm.close();
      await database.drop();
    }
  });
}
