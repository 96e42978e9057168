import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { RunningListener } from '../../../listener/app.ts';
import { silentLogger } from '../../../core/log.ts';
import { Health } from '../../../shared/index.ts';
import { startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, handSignedPayment, randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, postJson } from '../../helpers/listener.ts';
import { spawnChild, type Child } from '../../helpers/child.ts';
import { newInvoice as createInvoice, paying, requirementsOf, startX402Listener, type X402Envelope as Envelope } from '../../helpers/x402-listener.ts';

function listenerOn(chain: EvmTestChain, env: Record<string, string>): Promise<RunningListener> {
  return startX402Listener(
    chain,
    { MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address},usdt:${chain.usdt.address}`, BASE_CONFIRMATIONS: '2', X402_SETTLE_TIMEOUT_S: '3', ...env },
    { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } },
  );
}

/** An invoice here may be one x402 cannot pay (USDT): its x402_url is null. */
const newInvoice = createInvoice<{ invoice_id: string; receive_address: string; x402_url: string | null; status: string }>;

test('x402 refusals: every bad payload gets the envelope with its x402 reason and PAYMENT-REQUIRED, nothing is sent and nothing is marked; unknown, USDT, Bitcoin, expired and paid invoices; two payers at once; a nonce used', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const settler = randomAccount();
  const payer = randomAccount();
  const other = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  for (const who of [payer, other]) await chain.usdc.transfer(who.account.address, 100_000_000n, 1);
  const listener = await listenerOn(chain, { X402_SETTLER_KEY: settler.key, MERCHANT_BTC_XPUB: BIP84_ZPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL });
  try {
    const invoice = await newInvoice(listener, { amount_usd: 5 });
    const url = invoice.x402_url!;
    const good = await requirementsOf(url);
    const balances = async () => [await chain.usdc.balanceOf(payer.account.address), await chain.usdc.balanceOf(invoice.receive_address)];
    const before = await balances();
    const soon = Math.floor(Date.now() / 1000);

    const bad: Array<[string, string, string]> = [
      ['malformed base64', '!!!not base64!!!', 'invalid_payload'],
      ['base64 of text that is not JSON', Buffer.from('hello').toString('base64'), 'invalid_payload'],
      ['x402 version 1', await handSignedPayment(payer.key, good, { x402Version: 1 }), 'invalid_x402_version'],
      ['another scheme', await handSignedPayment(payer.key, good, { accepted: { scheme: 'upto' } }), 'invalid_exact_evm_scheme'],
      ['another network', await handSignedPayment(payer.key, good, { accepted: { network: 'eip155:1' } }), 'invalid_exact_evm_network_mismatch'],
      ['another token', await handSignedPayment(payer.key, good, { accepted: { asset: chain.usdt.address } }), 'invalid_exact_evm_asset_mismatch'],
      ['another recipient', await handSignedPayment(payer.key, good, { authorization: { to: other.account.address } }), 'invalid_exact_evm_recipient_mismatch'],
      ['one unit more', await handSignedPayment(payer.key, { ...good, amount: String(BigInt(good.amount) + 1n) }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
      ['one unit less', await handSignedPayment(payer.key, good, { authorization: { value: String(BigInt(good.amount) - 1n) } }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
      ['expired', await handSignedPayment(payer.key, good, { authorization: { validBefore: String(soon - 10) } }), 'invalid_exact_evm_payload_authorization_valid_before'],
      ['valid past the invoice', await handSignedPayment(payer.key, good, { authorization: { validBefore: String(soon + 7200) } }), 'invalid_exact_evm_payload_authorization_valid_before'],
      ['not yet valid', await handSignedPayment(payer.key, good, { authorization: { validAfter: String(soon + 600) } }), 'invalid_exact_evm_payload_authorization_valid_after'],
      ['signed by another key', await handSignedPayment(payer.key, good, { signerKey: other.key }), 'invalid_exact_evm_signature'],
    ];
    for (const [what, header, reason] of bad) {
      const answer = await paying(url, header);
      assert.equal(answer.status, 402, `${what}: ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.error.code, 'invalid_payment', what);
      assert.equal(answer.json.error.reason, reason, what);
      assert.equal(decodePaymentRequiredHeader(answer.headers.get('PAYMENT-REQUIRED')!).error, reason, `${what}: x402's error shape too`);
    }
    assert.deepEqual(await balances(), before, 'no bad payload moved money');
    assert.equal((await (await fetch(`${listener.url}/invoice/${invoice.invoice_id}`)).json()).status, 'pending');

    // Invoices x402 cannot pay.
    const unknown = await fetch(`${listener.url}/x402/inv_nope`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as Envelope).error.code, 'not_found');
    const usdt = await newInvoice(listener, { amount_usd: 5, asset: 'usdt' });
    assert.equal(usdt.x402_url, null);
    const usdtAnswer = await fetch(`${listener.url}/x402/${usdt.invoice_id}`);
    assert.equal(usdtAnswer.status, 409);
    assert.equal(((await usdtAnswer.json()) as Envelope).error.code, 'x402_unavailable');
    const btc = await postJson(`${listener.url}/invoice`, { chain: 'btc', amount_sats: 1000 });
    assert.equal(btc.json.x402_url, null);
    assert.equal(((await (await fetch(`${listener.url}/x402/${btc.json.invoice_id}`)).json()) as Envelope).error.code, 'x402_unavailable');
    const short = await newInvoice(listener, { amount_usd: 5, expires_in: 1 });
    assert.ok(short.x402_url);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const ended = await fetch(short.x402_url!);
    assert.equal(ended.status, 410);
    assert.equal(((await ended.json()) as Envelope).error.code, 'invoice_ended');
    assert.equal((await (await fetch(`${listener.url}/invoice/${short.invoice_id}`)).json()).x402_url, null);

    // Two payers at once: one settles, the other is refused and nothing is sent for it.
    const network = good.network;
    const first = x402Agent(payer.key, { network, asset: chain.usdc.address });
    const second = x402Agent(other.key, { network, asset: chain.usdc.address });
    const otherBefore = await chain.usdc.balanceOf(other.account.address);
    const payerBefore = await chain.usdc.balanceOf(payer.account.address);
    const both = await Promise.all([first.pay(url), second.pay(url)]);
    const statuses = both.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 409], (await Promise.all(both.map((a) => a.clone().text()))).join('\n'));
    const loser = both.find((answer) => answer.status === 409)!;
    assert.match(((await loser.json()) as Envelope).error.code, /^(payment_in_progress|invoice_paid)$/);
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 5_000_000n, 'exactly one payment reached the invoice');
    const spent = payerBefore - (await chain.usdc.balanceOf(payer.account.address)) + (otherBefore - (await chain.usdc.balanceOf(other.account.address)));
    assert.equal(spent, 5_000_000n, 'the refused payer paid nothing');

    // A nonce already used on the chain: refused before anything is sent.
    const winner = both.find((answer) => answer.status === 200)!;
    const winnerSent = (winner === both[0] ? first : second).sent[0]!;
    const usedNonce = JSON.parse(Buffer.from(winnerSent, 'base64').toString()).payload.authorization.nonce;
    const winnerKey = winner === both[0] ? payer.key : other.key;
    const next = await newInvoice(listener, { amount_usd: 2 });
    const nextRequirements = await requirementsOf(next.x402_url!);
    const reused = await paying(next.x402_url!, await handSignedPayment(winnerKey, nextRequirements, { authorization: { nonce: usedNonce } }));
    assert.equal(reused.status, 402);
    assert.equal(reused.json.error.reason, 'invalid_exact_evm_nonce_already_used');
    assert.equal(await chain.usdc.balanceOf(next.receive_address), 0n);
    assert.equal(decodePaymentResponseHeader(winner.headers.get('PAYMENT-RESPONSE')!).success, true);
  } finally {
    await listener.stop({ graceMs: 0 });
    await chain.close();
  }
});

/** A facilitator whose behaviour the test sets: the reference one (a separate process), down, hanging, or lying about success. */
async function scriptedFacilitator() {
  let mode: 'down' | 'hang' | 'lie' = 'down';
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req);
    if (mode === 'down') return res.destroy();
    if (mode === 'hang') return;
    const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/verify') return answer({ isValid: true, payer: '0x0000000000000000000000000000000000000001' });
    if (req.url === '/settle') return answer({ success: true, transaction: `0x${randomBytes(32).toString('hex')}`, network: 'eip155:31337', payer: '0x0000000000000000000000000000000000000001' });
    answer({ kinds: [], extensions: [], signers: {} });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (next: typeof mode) => void (mode = next),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

test('x402 through facilitators: the reference facilitator (a separate process) settles; one down or slow answers 503 with Retry-After and sends nothing; one that lies about success leaves the invoice pending and /health and /metrics show it', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const gas = randomAccount();
  const payer = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [gas.account.address, '0x8AC7230489E80000']);
  await chain.usdc.transfer(payer.account.address, 100_000_000n, 1);
  const reference: Child = spawnChild(process.execPath, ['--import', 'tsx', 'test/fixtures/x402-facilitator.ts'], { FACILITATOR_KEY: gas.key, RPC_URL: chain.anvil.url, CHAIN_ID: String(chain.anvil.chainId) });
  const scripted = await scriptedFacilitator();
  let listener: RunningListener | null = null;
  try {
    const [, referenceUrl] = await reference.waitFor(/facilitator listening on (\S+)/, 60_000);
    listener = await listenerOn(chain, { X402_FACILITATOR_URL: referenceUrl! });
    const agent = x402Agent(payer.key, { network: `eip155:${chain.anvil.chainId}`, asset: chain.usdc.address });
    const invoice = await newInvoice(listener, { amount_usd: 3 });
    const paid = await agent.pay(invoice.x402_url!);
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 3_000_000n);
    await chain.anvil.mine(1);
    const referenceHealth = Health.parse(await (await fetch(`${listener.url}/health`)).json());
    assert.equal(referenceHealth.x402?.chains.base?.settlement, 'facilitator');
    await listener.stop({ graceMs: 0 });

    listener = await listenerOn(chain, { X402_FACILITATOR_URL: scripted.url });
    const before = await chain.usdc.balanceOf(payer.account.address);
    for (const mode of ['down', 'hang'] as const) {
      scripted.set(mode);
      const pending = await newInvoice(listener, { amount_usd: 4 });
      const started = Date.now();
      const answer = await agent.pay(pending.x402_url!);
      assert.equal(answer.status, 503, `${mode}: ${await answer.clone().text()}`);
      assert.equal(((await answer.json()) as Envelope).error.code, 'settlement_unavailable');
      assert.ok(Number(answer.headers.get('Retry-After')) > 0);
      assert.ok(Date.now() - started < 15_000, `${mode}: the wait is bounded`);
      assert.equal(await chain.usdc.balanceOf(pending.receive_address), 0n);
    }

    scripted.set('lie');
    const lied = await newInvoice(listener, { amount_usd: 6 });
    const answer = await agent.pay(lied.x402_url!);
    assert.equal(answer.status, 502, await answer.clone().text());
    assert.equal(((await answer.json()) as Envelope).error.code, 'settlement_failed');
    await chain.anvil.mine(3);
    assert.equal((await (await fetch(`${listener.url}/invoice/${lied.invoice_id}`)).json()).status, 'pending', 'never on the facilitator\'s word');
    const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
    assert.equal(health.x402?.unseen_settlements, 1);
    const metrics = await (await fetch(`${listener.url}/metrics`)).text();
    assert.match(metrics, /service_x402_settlements_total\{chain="base",outcome="unseen"\} 1/);
    assert.equal(await chain.usdc.balanceOf(payer.account.address), before, 'nothing moved through the failing facilitators');
    const retry = await fetch(lied.x402_url!);
    assert.equal(retry.status, 409, 'the invoice is held for the merchant to look at');
  } finally {
    await listener?.stop({ graceMs: 0 });
    reference.process.kill();
    await scripted.close();
    await chain.close();
  }
});
