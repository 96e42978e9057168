import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { evmSpecOf } from '../../helpers/evm-chain.ts';
import { evmChainNames } from '../../../shared/index.ts';
import { decodePaymentResponseHeader, randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { postJson } from '../../helpers/listener.ts';
import { releasedPort } from '../../helpers/ports.ts';
import { runCli, spawnListener } from '../../helpers/process.ts';
import { invoiceReaching, waitForWatcher } from '../../helpers/wait-for-watcher.ts';

test('sandbox: `service fund` gives an agent wallet sandbox USDC on every EVM chain, the agent pays an invoice on each with the official x402 client, the sandbox settles it, and `service mine` confirms it', async () => {
  const chainPort = String(await releasedPort());
  const env = { SANDBOX_CHAIN_PORT: chainPort };
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', ...env }, mkdtempSync(join(tmpdir(), 'sandbox-x402-')));
  try {
    for (let i = 0; i < 50 && !/service fund/.test(listener.output()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(listener.output(), /npx service fund <0x address> \[amount_usd\]/);
    const agent = randomAccount();

    const usage = await runCli(['fund', 'not-an-address'], { env });
    assert.equal(usage.code, 2, usage.stderr);
    const funded = await runCli(['fund', agent.account.address, '25'], { env });
    assert.equal(funded.code, 0, funded.stderr);
    const tokens = new Map<string, string>();
    const lines = funded.stdout.trim().split('\n');
    const spendControls = /^spend controls: (\S+)$/.exec(lines.pop()!)?.[1];
    assert.ok(spendControls, funded.stdout);
    for (const line of lines) {
      const match = /^funded (0x[0-9a-fA-F]{40}) with 25\.000000 USDC on the (.+) sandbox \(token (0x[0-9a-fA-F]{40})\); tx_hash 0x[0-9a-f]{64}$/.exec(line);
      assert.ok(match, line);
      assert.equal(match[1], agent.account.address);
      tokens.set(match[2]!, match[3]!);
    }
    assert.equal(tokens.size, evmChainNames.length, funded.stdout);
    assert.deepEqual(spendControls.split(',').map((entry) => entry.split('/')[1]).sort(), [...tokens.values()].sort());

    const paid: { invoice_id: string; tx: string }[] = [];
    for (const chain of evmChainNames) {
      const created = await postJson(`${listener.url}/invoice`, { chain, amount_usd: 12.5 });
      assert.equal(created.status, 201, created.text);
      const network = `eip155:${evmSpecOf(chain).sandboxChainId}` as const;
      const required = await fetch(created.json.x402_url);
      const asset = JSON.parse(Buffer.from(required.headers.get('PAYMENT-REQUIRED')!, 'base64').toString()).accepts[0].asset as string;
      const payer = x402Agent(agent.key, { network, asset });
      const answer = await payer.pay(created.json.x402_url);
      assert.equal(answer.status, 200, await answer.clone().text());
      paid.push({ invoice_id: created.json.invoice_id, tx: decodePaymentResponseHeader(answer.headers.get('PAYMENT-RESPONSE')!).transaction });
    }
    const mined = await runCli(['mine'], { env });
    assert.equal(mined.code, 0, mined.stderr);
    for (const { invoice_id, tx } of paid) {
      const confirmed = await invoiceReaching(listener.url, invoice_id, 'confirmed');
      assert.equal(confirmed.tx_hash, tx);
    }
    // The signed webhook follows the confirmation: the sandbox's receiver prints every event it verified.
    const printed = await waitForWatcher(
      'the receiver to print an invoice.confirmed for each paid invoice',
      () => listener.output(),
      (output) => (output.match(/ invoice\.confirmed /g) ?? []).length >= paid.length && paid.every(({ invoice_id }) => new RegExp(`invoice_id +${invoice_id}`).test(output)),
      { watcher: async () => (await fetch(`${listener.url}/health`)).json() },
    );
    assert.match(printed, /invoice\.confirmed/);
  } finally {
    assert.equal(await listener.stop(), 0);
  }
});
