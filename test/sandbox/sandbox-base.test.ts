import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'eth-url-parser';
import { evmSpecOf } from '../helpers/evm-chain.ts';
import { chainFacts, evmChainNames } from '../../shared/index.ts';
import { postJson } from '../helpers/listener.ts';
import { releasedPort } from '../helpers/ports.ts';
import { runCli, spawnListener } from '../helpers/process.ts';
import { invoiceReaching as statusOf } from '../helpers/wait-for-watcher.ts';

test('sandbox: an invoice on each EVM chain is created, part-paid (partial), paid with `service pay` and confirmed after `service mine` (with a Bitcoin invoice beside it), on local chains', async () => {
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
    assert.deepEqual(health.enabled_assets, ['btc', 'btc-lightning', ...evmChainNames.flatMap((chain) => [`usdc-${chain}`, `usdt-${chain}`])], 'Lightning through the sandbox wallet; USDT at the sandbox fixed address, on every EVM chain');

    // Every EVM chain the service knows has its own local node; one merchant key serves them all.
    const evmInvoices: { chain: string; invoice_id: string; txHash: string }[] = [];
    for (const [index, chain] of evmChainNames.entries()) {
      const created = await postJson(`${listener.url}/invoice`, { chain, amount_usd: 12.5 });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.chain, chain);
      assert.equal(created.json.child_index, index, 'xpub mode: a derived address per invoice, one counter for every EVM chain');
      assert.equal(created.json.derivation_path, `m/44'/60'/0'/0/${index}`);
      const uri = parse(created.json.qr_uri);
      assert.equal(uri.chain_id, String(evmSpecOf(chain).sandboxChainId), `${chain}: the local chain, never the real one (${evmSpecOf(chain).mainnetChainId})`);
      assert.equal(uri.parameters?.uint256, '12500000');

      const part = await runCli(['pay', created.json.invoice_id, '2.5', '--url', listener.url], { env });
      assert.equal(part.code, 0, part.stderr);
      assert.match(part.stdout, new RegExp(`^paid 2\\.500000 USDC to ${created.json.receive_address}$`, 'm'));
      assert.equal((await statusOf(listener.url, created.json.invoice_id, 'partial')).status, 'partial', `${chain}: 2.5 of 12.5 USDC seen`);

      const paid = await runCli(['pay', created.json.invoice_id, '10', '--url', listener.url], { env });
      assert.equal(paid.code, 0, paid.stderr);
      const txHash = /^tx_hash (0x[0-9a-f]{64})$/m.exec(paid.stdout)?.[1];
      assert.ok(txHash, paid.stdout);
      const covered = await statusOf(listener.url, created.json.invoice_id, 'pending');
      assert.equal(covered.status, 'pending', `${chain}: covered; the second payment has 1 confirmation of 2`);
      evmInvoices.push({ chain, invoice_id: created.json.invoice_id, txHash });
    }

    // A Bitcoin invoice beside it: one `mine` confirms on both sandbox chains.
    const btc = await postJson(`${listener.url}/invoice`, { amount_sats: 50_000 });
    assert.equal(btc.json.network, 'regtest');
    const btcPaid = await runCli(['pay', btc.json.invoice_id, '--url', listener.url], { env });
    assert.equal(btcPaid.code, 0, btcPaid.stderr);
    assert.match(btcPaid.stdout, /^paid 50000 sats to /m);

    const mined = await runCli(['mine'], { env });
    assert.equal(mined.code, 0, mined.stderr);
    for (const chain of evmChainNames) assert.match(mined.stdout, new RegExp(`${chainFacts[chain].name} sandbox height \\d+`));
    for (const { chain, invoice_id, txHash } of evmInvoices) {
      const confirmed = await statusOf(listener.url, invoice_id, 'confirmed');
      assert.equal(confirmed.status, 'confirmed', chain);
      assert.equal(confirmed.tx_hash, txHash);
    }
    assert.equal((await statusOf(listener.url, btc.json.invoice_id, 'confirmed')).status, 'confirmed');

    // The sandbox pays only its own merchant's addresses (its key's children and its fixed address).
    for (const chain of evmChainNames) {
      const refused = await fetch(`http://127.0.0.1:${chainPort}/control/${chain}/pay`, {
        method: 'POST',
        body: JSON.stringify({ address: '0x000000000000000000000000000000000000dEaD', units: '1', asset: 'usdc' }),
      });
      assert.equal(refused.status, 400, chain);
      assert.match(await refused.text(), /^0x000000000000000000000000000000000000dEaD is not an invoice address of this sandbox's merchant; pay real invoices from a real wallet$/);
    }
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});
