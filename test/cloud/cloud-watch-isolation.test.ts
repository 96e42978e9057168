import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { ACCOUNT_PATH } from '../../core/evm/keys.ts';
import { startLocalEvm } from '../../sandbox/local-evm.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { getJson, signupMerchant, startLocalChainCloud } from '../helpers/cloud.ts';
import { postJson } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

/**
 * One Cloud watcher per chain serves every merchant, so one merchant's bad data must not stop it:
 * a merchant row with keys that do not parse, a fixed Base address that is no address, and a
 * Bitcoin invoice whose address cannot be read (as a corrupt or foreign row would be). Another
 * merchant's Bitcoin and Base invoices must still confirm, and the watchers say how many
 * merchants they left out without naming them. Both Bitcoin modes: full (the whole mempool read)
 * and address (a third-party Esplora: the mempool.space socket tracks the open invoices and
 * announces blocks). The local chain is regtest and the good merchant's key testnet, so in address
 * mode its payment is neither pushed nor polled: it confirms only if the announced block is read.
 */
for (const [mode, selfHosted] of [['full', 'true'], ['address', 'false']] as const) {
  test(`a merchant's bad keys, address and invoice are left out for that merchant alone: another merchant's Bitcoin and Base payments confirm (${mode} mode)`, { timeout: 120_000 }, () => isolation(selfHosted));
}

async function isolation(btcEsploraSelfHosted: 'true' | 'false') {
  const evm = await startLocalEvm({ chains: defaultChains });
  const { MERCHANT_BASE_XPUB: _unused, ...baseEnv } = evm.env;
  const ctx = await startLocalChainCloud({ env: { ...baseEnv, BTC_ESPLORA_SELF_HOSTED: btcEsploraSelfHosted, CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' }, deps: { chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 }, evm: { pollIntervalMs: 100 } }, refreshMs: 100 } } });
  try {
    const { db } = ctx.cloud.database;
    const now = Date.now();
    await db
      .insertInto('cloud_merchants')
      .values({
        merchant_id: 'm_broken', email: 'broken@example.com', shop_name: 'Broken', btc_xpub: 'tpub-not-a-key', base_xpub: 'xpub-not-a-key',
        base_address: '0xnot-an-address', webhook_url: null, webhook_secret: null, plan: 'free', plan_expires_at: null, created_at: now,
      })
      .execute();
    await db
      .insertInto('invoices')
      .values({
        invoice_id: 'inv_broken', merchant_id: 'm_broken', chain: 'btc', asset: 'BTC', network: 'testnet', receive_address: 'not-a-bitcoin-address',
        child_index: 0, derivation_path: null, key_id: 'broken', amount_sats: 10_000, amount_units: null, memo: null, status: 'pending', tx_hash: null,
        paid_at: null, expires_at: now + 3_600_000, created_at: now, updated_at: now,
      })
      .execute();

    const baseXpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
    const good = await signupMerchant(ctx.cloud.url, { btc_xpub: testAccountKey(21), base_xpub: baseXpub });
    const key = { 'X-Service-Api-Key': good.api_key };
    const btcInvoice = await postJson(`${ctx.cloud.url}/api/v1/invoice`, { amount_sats: 50_000 }, key);
    const baseInvoice = await postJson(`${ctx.cloud.url}/api/v1/invoice`, { chain: 'base', amount_usd: 3 }, key);
    assert.equal(btcInvoice.status, 201, btcInvoice.text);
    assert.equal(baseInvoice.status, 201, baseInvoice.text);

    const states = () => ctx.cloud.watcherStates() as Record<string, { refused_merchants?: number; subscribed_count?: number }>;
    const until = <T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean) =>
      waitForWatcher(what, read, done, { watcher: ctx.watcher, timeoutMs: 30_000 });
    await until('both watchers left the broken merchant out', states, (s) => Object.values(s).filter((state) => state.refused_merchants === 1).length === 2);

    ctx.chain.pay([{ ...payeeOf(btcInvoice.json.receive_address), value: 50_000n }]);
    ctx.chain.mine(1);
    await evm.tokens.usdc.transfer(baseInvoice.json.receive_address, BigInt(baseInvoice.json.amount_usdc_units), 0);
    await evm.anvil.mine(2);
    const status = (id: string) => async () => (await getJson(`${ctx.cloud.url}/api/v1/invoice/${id}`, key)).json.status as string;
    await until("the good merchant's Bitcoin invoice confirms", status(btcInvoice.json.invoice_id), (s) => s === 'confirmed');
    await until("the good merchant's Base invoice confirms", status(baseInvoice.json.invoice_id), (s) => s === 'confirmed');

    const health = await getJson(`${ctx.cloud.url}/api/v1/health`);
    assert.deepEqual(health.json.problems, [], 'neither watcher fails because of the broken merchant');
    assert.doesNotMatch(JSON.stringify(health.json), /m_broken/, 'a public route names no merchant');
  } finally {
    await ctx.close();
    await evm.close();
  }
}
