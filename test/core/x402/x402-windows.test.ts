import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningListener } from '../../../listener/app.ts';
import { silentLogger } from '../../../core/log.ts';
import { startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { handSignedPayment, randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { newInvoice, paying, requirementsOf, startX402Listener, type X402Envelope as Envelope } from '../../helpers/x402-listener.ts';

/** The service's clock: the wall clock moved by `offsetMs`, so a test can stand minutes later without sleeping. */
const shiftedClock = () => {
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  return clock;
};

function listenerOn(chain: EvmTestChain, settlerKey: string, clock: { now(): number }): Promise<RunningListener> {
  return startX402Listener(
    chain,
    { BASE_CONFIRMATIONS: '2', X402_SETTLER_KEY: settlerKey, X402_SETTLE_TIMEOUT_S: '3' },
    { logger: silentLogger, clock, tuning: { evm: { pollIntervalMs: 100 } } },
  );
}

test('x402 windows: validBefore past now + maxTimeoutSeconds (an hour out, or past the skew) is refused whatever the invoice\'s life; at the bound it settles', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const settler = randomAccount();
  const payer = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  await chain.usdc.transfer(payer.account.address, 100_000_000n, 1);
  const listener = await listenerOn(chain, settler.key, { now: () => Date.now() });
  try {
    const invoice = await newInvoice(listener, { amount_usd: 4, expires_in: 7200 });
    const good = await requirementsOf(invoice.x402_url);
    assert.equal(good.maxTimeoutSeconds, 300);
    assert.equal(good.extra.assetTransferMethod, 'eip3009', 'the 402 answer names the one authorization kind it takes');
    const now = Math.floor(Date.now() / 1000);
    for (const [what, validBefore] of [
      ['an hour out (the invoice lives two)', now + 3600],
      ['past maxTimeoutSeconds and the 30 s skew', now + 300 + 45],
    ] as const) {
      const answer = await paying(invoice.x402_url, await handSignedPayment(payer.key, good, { authorization: { validBefore: String(validBefore) } }));
      assert.equal(answer.status, 402, `${what}: ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.error.reason, 'invalid_exact_evm_payload_authorization_valid_before', what);
    }
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 0n);
    const settled = await paying(invoice.x402_url, await handSignedPayment(payer.key, good, { authorization: { validBefore: String(Math.floor(Date.now() / 1000) + 300 + 20) } }));
    assert.equal(settled.status, 200, `within the skew: ${JSON.stringify(settled.json)}`);
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 4_000_000n);
  } finally {
    await listener.stop({ graceMs: 0 });
    await chain.close();
  }
});

test('x402 lock: a settle that times out holds the invoice while its authorization can be mined, minutes past any fixed lock; a second authorization never settles beside it; once it lapsed unmined on the chain, the next payer pays', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const settler = randomAccount();
  const first = randomAccount();
  const second = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  for (const who of [first, second]) await chain.usdc.transfer(who.account.address, 100_000_000n, 1);
  const clock = shiftedClock();
  const listener = await listenerOn(chain, settler.key, clock);
  const network = `eip155:${chain.anvil.chainId}` as const;
  const sentBySettler = async () => Number(await chain.anvil.rpc<string>('eth_getTransactionCount', [settler.account.address, 'pending']));
  try {
    const invoice = await newInvoice(listener, { amount_usd: 5, expires_in: 7200 });
    // The settler's transaction waits in the mempool: its settle times out.
    await chain.anvil.rpc('evm_setAutomine', [false]);
    const timedOut = await x402Agent(first.key, { network, asset: chain.usdc.address }).pay(invoice.x402_url);
    assert.equal(timedOut.status, 503, await timedOut.clone().text());
    assert.equal(((await timedOut.json()) as Envelope).error.code, 'settlement_unavailable');
    assert.equal(await sentBySettler(), 1, 'the first authorization was sent');

    const quote = await fetch(invoice.x402_url);
    assert.equal(quote.status, 409);
    assert.equal(((await quote.json()) as Envelope).error.code, 'payment_in_progress');
    const requirements = { ...(await requirementsOf((await newInvoice(listener, { amount_usd: 5 })).x402_url)), payTo: invoice.receive_address };
    for (const minutesLater of [0, 11, 60]) {
      clock.offsetMs = minutesLater * 60_000;
      const validBefore = String(Math.floor(clock.now() / 1000) + 200);
      const answer = await paying(invoice.x402_url, await handSignedPayment(second.key, requirements, { authorization: { validBefore } }));
      assert.equal(answer.status, 409, `${minutesLater} min later: ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.error.code, 'payment_in_progress', `${minutesLater} min later`);
    }
    assert.equal(await sentBySettler(), 1, 'nothing was sent for the second payer');
    // The first is mined after all: the invoice is paid once.
    await chain.anvil.mine(1);
    const after = await paying(invoice.x402_url, await handSignedPayment(second.key, requirements, { authorization: { validBefore: String(Math.floor(clock.now() / 1000) + 200) } }));
    assert.equal(after.status, 409, JSON.stringify(after.json));
    await chain.anvil.rpc('evm_setAutomine', [true]);
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 5_000_000n, 'paid exactly once');
    assert.equal(await chain.usdc.balanceOf(second.account.address), 100_000_000n, 'the second payer paid nothing');

    // A settle that times out and is never mined: held until our node's chain is past its validBefore.
    clock.offsetMs = 0;
    const next = await newInvoice(listener, { amount_usd: 3, expires_in: 7200 });
    await chain.anvil.rpc('evm_setAutomine', [false]);
    const lost = await x402Agent(first.key, { network, asset: chain.usdc.address }).pay(next.x402_url);
    assert.equal(lost.status, 503, await lost.clone().text());
    await chain.anvil.rpc('anvil_dropAllTransactions', []);
    const nextRequirements = { ...requirements, amount: '3000000', payTo: next.receive_address };
    const signedLater = async () => handSignedPayment(second.key, nextRequirements, { authorization: { validBefore: String(Math.floor(clock.now() / 1000) + 200) } });
    clock.offsetMs = 420_000;
    const notYet = await paying(next.x402_url, await signedLater());
    assert.equal(notYet.status, 409, `our clock is past it, the chain is not: ${JSON.stringify(notYet.json)}`);
    await chain.anvil.rpc('evm_setAutomine', [true]);
    await chain.anvil.rpc('evm_increaseTime', [420]);
    await chain.anvil.mine(1);
    const paid = await paying(next.x402_url, await signedLater());
    assert.equal(paid.status, 200, JSON.stringify(paid.json));
    assert.equal(await chain.usdc.balanceOf(next.receive_address), 3_000_000n, 'paid once, by the second payer');
  } finally {
    await listener.stop({ graceMs: 0 });
    await chain.close();
  }
});
