import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as bitcoin from 'bitcoinjs-lib';
import { manualClock } from '../../core/clock.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { editRawTx, startLyingEsplora } from '../helpers/lying-esplora.ts';
import { postJson } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

// One Cloud watcher serves every merchant: a source listed first that serves a mempool transaction
// moving one merchant's payment to another merchant's address (and inflating it) credits no one from
// its bytes; the block credits the merchant it really pays, with what it really pays.

test('Cloud, liar first: a forged mempool transaction moving a payment to another merchant is dropped; the block credits the payee only', { timeout: 120_000 }, async () => {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server = await startLocalChainServer(chain);
  const liar = await startLyingEsplora();
  liar.target = server.esploraUrl;
  let cloud: RunningCloud | undefined;
  try {
    cloud = await startTestCloud({
      env: {
        BTC_ESPLORA_URL: `${liar.url},${server.esploraUrl}`,
        BTC_ESPLORA_NETWORK: 'regtest',
        BTC_ESPLORA_SELF_HOSTED: 'true',
        CLOUD_WATCH: 'true',
        CLOUD_SIGNUP_RATE_LIMIT: 'off',
        CLOUD_INVOICE_RATE_LIMIT: 'off',
      },
      deps: { clock, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 20 } }, refreshMs: 20 } },
    });
    const { db } = cloud.database;
    const watcher = () => ({ tip: chain.tip.height, watchers: cloud!.watcherStates() });
    const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) => waitForWatcher(what, read, done, { watcher, timeoutMs: 30_000 });
    const merchants: Array<{ key: Record<string, string>; invoice: { invoice_id: string; receive_address: string } }> = [];
    for (const seed of [31, 32]) {
      const m = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(seed) });
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 50_000 }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(created.status, 201, created.text);
      merchants.push({ key: { 'X-Service-Api-Key': m.api_key }, invoice: created.json as { invoice_id: string; receive_address: string } });
    }
    const [payee, other] = merchants;
    const payeeScript = Buffer.from(payeeOf(payee.invoice.receive_address).script).toString('hex');
    const otherScript = Buffer.from(payeeOf(other.invoice.receive_address).script);
    liar.lie = editRawTx((raw) => {
      const tx = bitcoin.Transaction.fromBuffer(raw);
      for (const out of tx.outs) {
        if (Buffer.from(out.script).toString('hex') !== payeeScript) continue;
        out.script = otherScript;
        out.value = 90_000n;
      }
      return Buffer.from(tx.toBuffer());
    });
    const status = (m: (typeof merchants)[number]) => async () => (await getJson(`${cloud!.url}/api/v1/invoice/${m.invoice.invoice_id}`, m.key)).json.status as string;
    const forgedSeen = async () => {
      const text = await (await fetch(`${cloud!.url}/metrics`)).text();
      return /^service_chain_source_rejected_total\{[^}]*reason="tx-mismatch"\} [1-9]/m.test(text);
    };
    const txid = chain.pay([{ ...payeeOf(payee.invoice.receive_address), value: 50_000n }]);
    clock.advance(2_001);
    await until('the forged mempool transaction is dropped and counted', forgedSeen, Boolean);
    const seen = async () => (await db.selectFrom('btc_payments').select(['invoice_id', 'value_sats']).execute()).map((r) => [r.invoice_id, Number(r.value_sats)]);
    // The next source's bytes are the transaction's own: the sighting is the payee's, for what it pays.
    await until('the real transaction seen from the honest source', seen, (rows) => rows.length > 0);
    assert.deepEqual(await seen(), [[payee.invoice.invoice_id, 50_000]]);

    chain.mine(1);
    clock.advance(2_001);
    await until("the payee's invoice confirms from its block", status(payee), (s) => s === 'confirmed');
    assert.equal(await status(other)(), 'pending');
    const rows = await db.selectFrom('btc_payments').select(['invoice_id', 'txid', 'value_sats', 'status']).execute();
    assert.deepEqual(rows.map((r) => [r.invoice_id, r.txid, Number(r.value_sats), r.status]), [[payee.invoice.invoice_id, txid, 50_000, 'block']]);
  } finally {
    await cloud?.stop();
    await server.close();
    await liar.close();
  }
});
