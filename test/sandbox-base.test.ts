import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'eth-url-parser';
import { postJson } from './support/listener.ts';
import { releasedPort } from './support/ports.ts';
import { runCli, spawnListener } from './support/process.ts';
import { invoiceReaching as statusOf } from './support/wait-for-watcher.ts';

test('sandbox: a Base invoice is created, part-paid (partial), paid with `service pay` and confirmed after `service mine` (with a Bitcoin invoice beside it), on local chains', async () => {
  const chainPort = String(await releasedPort());
  const env = { SANDBOX_CHAIN_PORT: chainPort };
  // No merchant key at all: `service start` runs the sandbox.
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', ...env }, mkdtempSync(join(tmpdir(), 'sandbox-')));
  try {
    // The banner follows the "listener started" line.
    for (let i = 0; i < 50 && !/not Base\)/.test(listener.output()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(listener.output(), /SANDBOX MODE/);
    assert.match(listener.output(), /local EVM node \(chain id 31337, not Base\)/);
    const health = await (await fetch(`${listener.url}/health`)).json();
    assert.deepEqual(health.enabled_assets, ['btc', 'usdc-base', 'usdt-base'], 'USDT at the sandbox fixed address');

    const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 12.5 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.child_index, 0, 'xpub mode: a derived address per invoice');
    assert.equal(created.json.derivation_path, "m/44'/60'/0'/0/0");
    const uri = parse(created.json.qr_uri);
    assert.equal(uri.chain_id, '31337', 'the local chain, never Base mainnet (8453)');
    assert.equal(uri.parameters?.uint256, '12500000');

    const part = await runCli(['pay', created.json.invoice_id, '2.5', '--url', listener.url], { env });
    assert.equal(part.code, 0, part.stderr);
    assert.match(part.stdout, new RegExp(`^paid 2\\.500000 USDC to ${created.json.receive_address}$`, 'm'));
    assert.equal((await statusOf(listener.url, created.json.invoice_id, 'partial')).status, 'partial', '2.5 of 12.5 USDC seen');

    const paid = await runCli(['pay', created.json.invoice_id, '10', '--url', listener.url], { env });
    assert.equal(paid.code, 0, paid.stderr);
    const txHash = /^tx_hash (0x[0-9a-f]{64})$/m.exec(paid.stdout)?.[1];
    assert.ok(txHash, paid.stdout);
    const covered = await statusOf(listener.url, created.json.invoice_id, 'pending');
    assert.equal(covered.status, 'pending', 'covered; the second payment has 1 confirmation of 2');

    // A Bitcoin invoice beside it: one `mine` confirms on both sandbox chains.
    const btc = await postJson(`${listener.url}/invoice`, { amount_sats: 50_000 });
    assert.equal(btc.json.network, 'regtest');
    const btcPaid = await runCli(['pay', btc.json.invoice_id, '--url', listener.url], { env });
    assert.equal(btcPaid.code, 0, btcPaid.stderr);
    assert.match(btcPaid.stdout, /^paid 50000 sats to /m);

    const mined = await runCli(['mine'], { env });
    assert.equal(mined.code, 0, mined.stderr);
    assert.match(mined.stdout, /Base sandbox height \d+/);
    const confirmed = await statusOf(listener.url, created.json.invoice_id, 'confirmed');
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.tx_hash, txHash);
    assert.equal((await statusOf(listener.url, btc.json.invoice_id, 'confirmed')).status, 'confirmed');

    // The sandbox pays only its own merchant's addresses (its key's children and its fixed address).
    const refused = await fetch(`http://127.0.0.1:${chainPort}/control/base/pay`, {
      method: 'POST',
      body: JSON.stringify({ address: '0x000000000000000000000000000000000000dEaD', units: '1', asset: 'usdc' }),
    });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /^0x000000000000000000000000000000000000dEaD is not an invoice address of this sandbox's merchant; pay real invoices from a real wallet$/);
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});
