import { chainFacts, evmChainNames } from '../../shared/index.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bannerLine, runLines, runnable, verifiedWebhook } from '../helpers/banner.ts';
import { spawnBin, type Child } from '../helpers/child.ts';
import { NO_CHAIN_ESPLORA_URL, tempSqliteUrl } from '../helpers/listener.ts';
import { runCli, SERVICE_BIN } from '../helpers/process.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

describe('Cloud sandbox: `service start --cloud` with no settings', () => {
  it('from nothing to a confirmed invoice and a verified webhook, with the commands its banner prints, on local chains only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-sandbox-'));
    // Nothing but PATH and free ports: no database, chain or checkout setting.
    const child: Child = spawnBin(SERVICE_BIN, ['start', '--cloud'], { PORT: '0', SANDBOX_CHAIN_PORT: '0' }, dir);
    let exited = false;
    try {
      await child.waitFor(/Confirm: {2}npx service mine\n\n/, 120_000);
      const banner = child.stderr();
      assert.match(banner, /CLOUD SANDBOX: no Cloud settings are given/);
      const api = bannerLine(banner, 'API:').split(/\s+/)[0]!;
      assert.match(api, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      const origin = api.replace(/\/api\/v1$/, '');
      assert.equal(bannerLine(banner, 'Dashboard:').split(/\s+/)[0], `${origin}/dashboard`);
      assert.match(bannerLine(banner, 'Webhooks:'), /^sent to a local receiver \(http:\/\/127\.0\.0\.1:\d+\/webhook\) that verifies each signature/);

      // The key is printed once, in the line that exports it; every other line refers to $SERVICE_API_KEY.
      const keyLine = runnable(bannerLine(banner, 'Key:'));
      const key = /^export SERVICE_API_KEY=(sk_[A-Za-z0-9_-]{43})$/.exec(keyLine)?.[1];
      assert.ok(key, keyLine);
      assert.equal(banner.split(key).length - 1, 1, 'the API key appears once in the banner');
      assert.ok(!child.stdout().includes(key), 'and never in the logs');

      // Pasted in order into one shell: create (keeps $ID), pay, mine.
      const create = runnable(bannerLine(banner, 'Create:', 'amount_sats'));
      const [pay, confirm] = bannerLine(banner, 'Pay:', 'amount_sats').split(/\s+Confirm:\s+/).map(runnable);
      assert.equal(pay, `${process.execPath} ${SERVICE_BIN} pay $ID`);
      const out = await runLines([keyLine, create, pay!, confirm!], dir);
      const invoiceId = out.split('\n')[0]!;
      assert.match(invoiceId, /^inv_[A-Za-z0-9_-]+$/, out);
      assert.match(out, /^paid 50000 sats to bcrt1/m, 'a regtest address, paid from the sandbox wallet');
      assert.match(out, new RegExp(`^mined 1 block\\(s\\); height \\d+${evmChainNames.map((chain) => `; ${chainFacts[chain].name} sandbox height \\d+`).join('')}$`, 'm'), 'every EVM node mined too');

      // The status line, run as printed with the same $ID, until the watcher has confirmed it.
      const status = runnable(bannerLine(banner, 'Status:'));
      const confirmed = await waitForWatcher(
        `invoice ${invoiceId} to read confirmed through the banner's status line`,
        async () => JSON.parse(await runLines([keyLine, `ID=${invoiceId}`, status], dir)) as Record<string, unknown>,
        (invoice) => invoice.status === 'confirmed',
        { watcher: async () => (await fetch(`${api}/health`)).json(), timeoutMs: 60_000, everyMs: 500 },
      );
      assert.equal(confirmed.merchant_id, 'm_sandbox_demo');
      assert.equal(confirmed.network, 'regtest');

      const webhook = await waitForWatcher(
        'the verified invoice.confirmed webhook in the console',
        () => verifiedWebhook(child.stderr(), 'invoice.confirmed', invoiceId),
        (block) => block !== null,
        { watcher: () => child.stderr().slice(-3000), timeoutMs: 30_000 },
      );
      assert.match(webhook!, new RegExp(`invoice_id +${invoiceId}\\n`));
      assert.match(webhook!, /merchant_id +m_sandbox_demo\n/);

      // The payer's page, from the banner's line; explorer links and chain sources are all local.
      const payer = (await runLines([`ID=${invoiceId}`, runnable(bannerLine(banner, 'Payer:'))], dir)).trim();
      assert.equal(payer, `${origin}/pay/${invoiceId}`);
      assert.equal((await fetch(payer)).status, 200);
      const view = (await (await fetch(`${api}/checkout/${invoiceId}`)).json()) as { verify_url: string; status: string };
      assert.equal(view.status, 'confirmed');
      assert.match(view.verify_url, /^http:\/\/127\.0\.0\.1:\d+\/explorer\/address\/bcrt1/);
      const health = (await (await fetch(`${api}/health`)).json()) as { ok: boolean; chain_sources: { label: string }[] };
      assert.equal(health.ok, true, JSON.stringify(health));
      assert.ok(health.chain_sources.length >= 3, 'Esplora, and the EVM node with its second source');
      for (const source of health.chain_sources) assert.match(source.label, /^http:\/\/127\.0\.0\.1:\d+/, 'never a public network');

      // USDT at the sandbox's fixed address, from the banner's line, paid exactly: confirmed.
      const usdt = JSON.parse(await runLines([keyLine, runnable(bannerLine(banner, 'Create:', '"asset":"usdt"')), `curl -s ${api}/invoice/$ID -H "X-Service-Api-Key: $SERVICE_API_KEY"`], dir).then((o) => o.split('\n').slice(1).join('\n')));
      assert.equal(usdt.asset, 'USDT');
      assert.equal(usdt.child_index, null, 'fixed-address mode');
      const usdtPaid = await runLines([`ID=${usdt.invoice_id}`, runnable(bannerLine(banner, 'Pay:', 'amount_usd').split(/\s+Confirm:/)[0]!), runnable('npx service mine')], dir);
      assert.match(usdtPaid, new RegExp(`^paid ${usdt.amount_usdc.replace('.', '\\.')} USDT to ${usdt.receive_address}$`, 'm'));
      await waitForWatcher(
        `USDT invoice ${usdt.invoice_id} confirmed`,
        async () => JSON.parse(await runLines([keyLine, `ID=${usdt.invoice_id}`, status], dir)).status as string,
        (value) => value === 'confirmed',
        { watcher: async () => (await fetch(`${api}/health`)).json(), timeoutMs: 60_000, everyMs: 500 },
      );

      // The listener's deliveries command points at the dashboard rather than reading Cloud's database.
      const deliveries = await runCli(['deliveries'], { cwd: dir });
      assert.equal(deliveries.code, 1);
      assert.equal(deliveries.stderr, `The sandbox running in this directory is the Cloud sandbox; its webhook deliveries are on its dashboard (${origin}/dashboard, Webhooks).\n`);
    } finally {
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0, child.stderr().slice(-2000));
      exited = true;
    }
    assert.ok(exited);
    // Nothing outlives the run.
    assert.deepEqual(existsSync(join(dir, 'data')) ? readdirSync(join(dir, 'data')) : [], []);
  });

  it('with real settings, Cloud starts as before: no sandbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-real-'));
    const child = spawnBin(SERVICE_BIN, ['start', '--cloud'], { PORT: '0', DATABASE_URL: tempSqliteUrl(), BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, CLOUD_WATCH: 'false' }, dir);
    try {
      await child.waitFor(/"msg":"cloud started"/, 60_000);
      assert.doesNotMatch(child.stderr(), /SANDBOX/);
      assert.equal(existsSync(join(dir, 'data', 'sandbox.json')), false);
    } finally {
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0);
    }
  });
});
