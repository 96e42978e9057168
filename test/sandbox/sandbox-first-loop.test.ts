import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { describeCreatedInvoice } from '../../mcp/invoice-text.ts';
import { bannerLine } from '../helpers/banner.ts';
import { releasedPort } from '../helpers/ports.ts';
import { runCli, spawnListener, type ListenerProcess } from '../helpers/process.ts';
import { invoiceReaching as statusOf, waitForWatcher } from '../helpers/wait-for-watcher.ts';

const shell = promisify(execFile);

/** The listener's console once it matches `pattern`; on timeout the error holds the output. */
function consoleShows(listener: ListenerProcess, pattern: RegExp, what: string): Promise<string> {
  return waitForWatcher(what, async () => listener.output(), (output) => pattern.test(output), {
    watcher: async () => ({ output: listener.output().slice(-4000) }),
    timeoutMs: 30_000,
  });
}

test('sandbox after `service init`: the banner\'s commands work with the key, pay + mine end in a verified webhook in the console, `service deliveries` lists it, verify_url is a readable page, Base names the local chain', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-loop-'));
  const chainPort = String(await releasedPort());
  const env = { SANDBOX_CHAIN_PORT: chainPort };
  // The path: `service init` writes SERVICE_API_KEY and MERCHANT_WEBHOOK_SECRET to ./.env.
  const init = await runCli(['init'], { cwd: dir });
  assert.equal(init.code, 0, init.stderr);
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', ...env }, dir);
  try {
    const banner = await consoleShows(listener, /Confirm:  npx service mine\n\n/, 'the sandbox banner');
    assert.match(banner, /Webhooks: sent to a local receiver \(http:\/\/127\.0\.0\.1:\d+\/webhook\) that verifies each signature/);
    assert.doesNotMatch(banner, /SERVICE_API_KEY=[0-9a-zA-Z]/, 'the key itself is never printed');

    // Run the banner's commands as printed, in the sandbox's directory, as a user would paste them.
    const script = `${bannerLine(banner, 'Load:')}\n${bannerLine(banner, 'Create:', 'amount_sats')}`;
    const created = JSON.parse((await shell('sh', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH } })).stdout);
    assert.match(created.invoice_id, /^inv_/, JSON.stringify(created));
    const unkeyed = await fetch(`${listener.url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount_sats":50000}' });
    assert.equal(unkeyed.status, 401, 'the key is in force, so the header is what made the banner\'s command work');

    const paid = await runCli(['pay', created.invoice_id, '--url', listener.url], { env, cwd: dir });
    assert.equal(paid.code, 0, paid.stderr);
    const txid = /^txid ([0-9a-f]{64})$/m.exec(paid.stdout)?.[1];
    assert.ok(txid, paid.stdout);
    const mined = await runCli(['mine'], { env, cwd: dir });
    assert.equal(mined.code, 0, mined.stderr);
    await statusOf(listener.url, created.invoice_id, 'confirmed');

    const output = await consoleShows(listener, /signature verified[^]*invoice\.confirmed/, 'the verified webhook in the listener console');
    const block = /WEBHOOK received and signature verified \(sandbox receiver\):\n {2}\S+ {2}invoice\.confirmed {2}(evt_\S+) {2}attempt 1\n([^]*?)\n\n/.exec(output);
    assert.ok(block, output);
    assert.match(block[2], new RegExp(`invoice_id +${created.invoice_id}`));
    const eventId = block[1]!;

    // The CLI reads the running sandbox's state, not ./data/service.db.
    const deliveries = await runCli(['deliveries', '--all'], { env, cwd: dir });
    assert.equal(deliveries.code, 0, deliveries.stderr);
    assert.match(deliveries.stdout, new RegExp(`^${eventId} +invoice\\.confirmed +delivered +1 +HTTP 200`, 'm'));
    const attempts = await runCli(['deliveries', 'attempts', eventId], { env, cwd: dir });
    assert.match(attempts.stdout, /^#1 .* HTTP 200/m);
    const gap = await runCli(['gap', '--json'], { env: { ...env, PORT: new URL(listener.url).port }, cwd: dir });
    assert.equal(gap.code, 0, gap.stderr);
    assert.equal(JSON.parse(gap.stdout).highest_paid_child_index, 0, 'the sandbox listener\'s own gap report');

    // verify_url opens an HTML page that shows the payment.
    const page = await fetch(created.verify_url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, new RegExp(`${txid}</code></a></td><td>50000 sats received</td><td>1 confirmation\\(s\\)`));
    assert.match(html, /SANDBOX/);

    // Base: API, MCP text and checkout name the local chain, and its verify_url page shows the transfer.
    const base = JSON.parse(
      (await shell('sh', ['-c', `${bannerLine(banner, 'Load:')}\n${bannerLine(banner, 'Create:', '"chain":"base"')}`], { cwd: dir, env: { PATH: process.env.PATH } })).stdout,
    );
    assert.match(base.qr_uri, /@31337\//);
    assert.match(describeCreatedInvoice(defaultChains, base), /^Pay 12\.500000 USDC \(12\.5 USD\) on local EVM chain \(id 31337\) — sandbox, not real tokens — to 0x/m);
    const checkout = await (await fetch(`${listener.url}/pay/${base.invoice_id}`)).text();
    assert.match(checkout, /<dd id="network">USDC on local EVM chain \(id 31337\) — sandbox, not real tokens<\/dd>/);
    assert.doesNotMatch(checkout, /on Base \(not Ethereum mainnet\)/);
    const basePaid = await runCli(['pay', base.invoice_id, '--url', listener.url], { env, cwd: dir });
    assert.equal(basePaid.code, 0, basePaid.stderr);
    const txHash = /^tx_hash (0x[0-9a-f]{64})$/m.exec(basePaid.stdout)?.[1];
    const baseHtml = await (await fetch(base.verify_url)).text();
    assert.match(baseHtml, new RegExp(`${txHash}</code></a></td><td>12\\.500000 test USDC to ${base.receive_address.toLowerCase()}</td>`));
    assert.match(baseHtml, /local test chain \(id 31337\), not Base/);
  } finally {
    assert.equal(await listener.stop(), 0);
  }
  // Nothing outlives the run, and the CLI then says plainly that there is no sandbox to read.
  const after = await runCli(['deliveries'], { env, cwd: dir });
  assert.equal(after.code, 1);
  assert.match(after.stderr, /no sandbox is running in this directory/);
  assert.equal(after.stdout, '');
  const gap = await runCli(['gap'], { env: { ...env, PORT: String(await releasedPort()) }, cwd: dir });
  assert.equal(gap.code, 1);
  assert.match(gap.stderr, /^No listener answers at http:\/\/127\.0\.0\.1:\d+ \(connection refused\): start it/m);
});

test('sandbox with SERVICE_API_KEY in the environment: the banner\'s create command sends it and works as printed; a MERCHANT_WEBHOOK_URL of the user\'s own is respected', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-'));
  const key = 'sandbox-test-key-0123456789abcdef';
  const own = { MERCHANT_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', MERCHANT_WEBHOOK_SECRET: 'whsec_own_secret_for_this_test' };
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', SERVICE_API_KEY: key, ...own }, dir);
  try {
    const banner = await consoleShows(listener, /Confirm:  npx service mine( \[n\])?\n\n/, 'the sandbox banner');
    assert.match(banner, /Webhooks: sent to your MERCHANT_WEBHOOK_URL \(http:\/\/127\.0\.0\.1:9\/hooks\)/);
    assert.doesNotMatch(banner, /Load:/);
    assert.ok(!banner.includes(key), 'the key itself is never printed');
    const create = bannerLine(banner, 'Create:', 'amount_sats');
    const created = JSON.parse((await shell('sh', ['-c', create], { cwd: dir, env: { PATH: process.env.PATH, SERVICE_API_KEY: key } })).stdout);
    assert.match(created.invoice_id, /^inv_/, JSON.stringify(created));
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});

test('`service deliveries` does not read the database a killed sandbox left behind: it says no sandbox is running', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-stale-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'sandbox.db'), '');
  // The pid of a process that has exited: what a sandbox killed with SIGKILL leaves in its state file.
  const state = { pid: spawnSync(process.execPath, ['-e', '']).pid, edition: 'listener', api_url: 'http://127.0.0.1:9', chain_url: 'http://127.0.0.1:9', database: './data/sandbox.db' };
  writeFileSync(join(dir, 'data', 'sandbox.json'), JSON.stringify(state));
  const listed = await runCli(['deliveries'], { cwd: dir });
  assert.equal(listed.code, 1);
  assert.match(listed.stderr, /no sandbox is running in this directory/);
  assert.equal(listed.stdout, '');
});
