import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bannerLine, runLines, runnable, verifiedWebhook } from '../helpers/banner.ts';
import { evmChainNames } from '../../shared/index.ts';
import { postJson } from '../helpers/listener.ts';
import { spawnListener, type ListenerProcess } from '../helpers/process.ts';
import { invoiceReaching, waitForWatcher } from '../helpers/wait-for-watcher.ts';

/** The sandbox receiver's verified block for an event of `type` that mentions `field`, once the console shows it. */
function consoleWebhook(listener: ListenerProcess, type: string, field: string): Promise<string | null> {
  return waitForWatcher(`a verified ${type} webhook naming ${field}`, () => verifiedWebhook(listener.output(), type, field), (block) => block !== null, {
    watcher: () => listener.output().slice(-3000),
    timeoutMs: 60_000,
  });
}

test('listener sandbox, fixed-address mode: USDT at the sandbox fixed address, paid exactly (confirmed by two sources) and wrongly (payment.orphan), with the banner\'s commands', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-fixed-'));
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '' }, dir);
  try {
    const banner = await waitForWatcher('the sandbox banner', () => listener.output(), (o) => /Confirm: {2}npx service mine\n\n/.test(o), {
      watcher: () => listener.output().slice(-3000),
      timeoutMs: 60_000,
    });
    const fixedAddress = /^ {11}(0x[0-9a-fA-F]{40}); the nonce in the amount's last 4 decimals/m.exec(banner)?.[1];
    assert.ok(fixedAddress, banner);
    const health = (await (await fetch(`${listener.url}/health`)).json()) as { enabled_assets: string[]; base: { rpc_sources: number; fixed_address_confirming: boolean } };
    for (const chain of evmChainNames) assert.ok(health.enabled_assets.includes(`usdt-${chain}`), JSON.stringify(health.enabled_assets));
    assert.equal(health.base.rpc_sources, 2, 'the node and a second source over it');
    assert.equal(health.base.fixed_address_confirming, true);

    // The same walkthrough on every EVM chain: one fixed address serves them all.
    for (const chain of evmChainNames) {
      // Created with the banner's own line: fixed-address mode, the nonce in the last 4 decimals.
      const created = JSON.parse(await runLines([runnable(bannerLine(banner, 'Create:', `"chain":"${chain}","asset":"usdt"`))], dir));
      assert.equal(created.mode, 'fixed-address');
      assert.equal(created.asset, 'USDT');
      assert.equal(created.receive_address, fixedAddress);
      assert.ok(created.nonce >= 1 && created.nonce <= 9999);
      assert.equal(created.amount_usdc_units, 12_340_000 + created.nonce, '12.34 rounded to the cent, plus the nonce');

      // Paid exactly, as `service pay` does by default; `service mine` adds the second confirmation.
      const [pay, confirm] = bannerLine(banner, 'Pay:', 'amount_usd').split(/\s+Confirm:\s+/).map(runnable);
      const paid = await runLines([`${pay!.replace('<invoice_id>', created.invoice_id)}`, confirm!], dir);
      const txHash: string | undefined = new RegExp(`^paid ${created.amount_usdc.replace('.', '\\.')} USDT to ${fixedAddress}\\ntx_hash (0x[0-9a-f]{64})$`, 'm').exec(paid)?.[1];
      assert.ok(txHash, paid);
      const confirmed = await invoiceReaching(listener.url, created.invoice_id, 'confirmed');
      assert.equal(confirmed.tx_hash, txHash);
      const again = await runLines([`${pay!.replace('<invoice_id>', created.invoice_id)} || echo "exit $?"`], dir).catch((error: { stderr?: string }) => error.stderr ?? '');
      assert.match(again, /exit 1/, 'a paid invoice is not paid twice by default');
      const confirmedHook = await consoleWebhook(listener, 'invoice.confirmed', created.invoice_id);
      assert.match(confirmedHook!, /asset +USDT\n/);
      assert.match(confirmedHook!, new RegExp(`amount +${created.amount_usdc.replace('.', '\\.')}\\n`));

      // The banner's Orphan line: 12.34 without the nonce pays nothing and is reported as payment.orphan.
      const second = await postJson(`${listener.url}/invoice`, { chain, asset: 'usdt', amount_usd: 12.34 });
      assert.equal(second.status, 201, second.text);
      assert.notEqual(second.json.nonce, created.nonce, 'the paid invoice\'s exact amount stays reserved');
      const orphanLine = runnable(bannerLine(banner, 'Orphan:')).replace('<invoice_id>', second.json.invoice_id);
      const sent = await runLines([orphanLine, confirm!], dir);
      assert.match(sent, new RegExp(`^paid 12\\.340000 USDT to ${fixedAddress}$`, 'm'));
      assert.match(sent, /^note: not the invoice's exact amount 12\.34\d{4}: .* payment\.orphan/m);
      const orphanTx = /^tx_hash (0x[0-9a-f]{64})$/m.exec(sent)?.[1];
      const orphan = await consoleWebhook(listener, 'payment.orphan', orphanTx!);
      assert.match(orphan!, /value +12\.340000\n/);
      assert.match(orphan!, new RegExp(`address +${fixedAddress}\\n`));
      const after = (await (await fetch(`${listener.url}/invoice/${second.json.invoice_id}`)).json()) as { status: string };
      assert.equal(after.status, 'pending', `${chain}: an inexact amount marks nothing paid`);
    }
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});

test('listener sandbox with SANDBOX_USDC_MODE=fixed-address: USDC goes to the fixed address too', async () => {
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', SANDBOX_USDC_MODE: 'fixed-address' }, mkdtempSync(join(tmpdir(), 'sandbox-usdc-fixed-')));
  try {
    const usdc = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5 });
    const usdt = await postJson(`${listener.url}/invoice`, { chain: 'base', asset: 'usdt', amount_usd: 5 });
    assert.equal(usdc.status, 201, usdc.text);
    assert.equal(usdc.json.mode, 'fixed-address');
    assert.equal(usdc.json.child_index, undefined);
    assert.equal(usdc.json.receive_address, usdt.json.receive_address);
    assert.notEqual(usdc.json.amount_usdc_units, usdt.json.amount_usdc_units, 'one nonce pool for both tokens at one address');
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});
