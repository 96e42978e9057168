import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { startLocalEvm, type LocalEvm } from '../../sandbox/local-evm.ts';
import type { exchange } from './openapi-check.ts';
import { handSignedPayment, randomAccount, type Requirements } from './x402-agent.ts';

type Send = (method: string, path: string, options?: Parameters<typeof exchange>[3]) => ReturnType<typeof exchange>;

/**
 * One local node standing in for two EVM chains at once: Base settled by the built-in settler,
 * Ethereum by a facilitator the test switches between down and lying. The settings any edition
 * takes (`env`), and a funded payer.
 */
export async function x402Stage() {
  const evm: LocalEvm = await startLocalEvm({ chains: defaultChains });
  const settler = randomAccount();
  const payer = randomAccount();
  await evm.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  await evm.tokens.usdc.transfer(payer.account.address, 50_000_000n, 0);
  let mode: 'down' | 'lie' = 'down';
  const facilitator = createServer(async (req, res) => {
    for await (const _ of req);
    if (mode === 'down') return res.destroy();
    const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/verify') return answer({ isValid: true, payer: payer.account.address });
    answer({ success: true, transaction: `0x${randomBytes(32).toString('hex')}`, network: `eip155:${evm.anvil.chainId}`, payer: payer.account.address });
  });
  await new Promise<void>((resolve) => facilitator.listen(0, '127.0.0.1', resolve));
  const token = `usdc:${evm.tokens.usdc.address}`;
  return {
    evm,
    env: {
      BASE_RPC_URL: evm.anvil.url,
      // One local node, declared trusted as an operator declares its own.
      BASE_MIN_SOURCES: '1',
      BASE_CHAIN_ID: String(evm.anvil.chainId),
      BASE_TOKENS: token,
      BASE_FINALITY: 'count',
      ETH_RPC_URL: evm.anvil.url,
      // One local node, declared trusted as an operator declares its own.
      ETH_MIN_SOURCES: '1',
      ETH_CHAIN_ID: String(evm.anvil.chainId),
      ETH_TOKENS: token,
      ETH_FINALITY: 'count',
      X402_SETTLER_KEY: settler.key,
      ETH_X402_FACILITATOR_URL: `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`,
      X402_SETTLE_TIMEOUT_S: '2',
      X402_RATE_LIMIT: '40,1000',
    },
    payerKey: payer.key,
    setFacilitator: (next: typeof mode) => void (mode = next),
    async close() {
      facilitator.closeAllConnections();
      await new Promise<void>((resolve) => facilitator.close(() => resolve()));
      await evm.close();
    },
  };
}

/**
 * Every answer of an invoice's x402 URL (`prefix` + `/x402/{id}`) on a service set up with
 * `x402Stage`'s settings, each through `send` (which checks it against the document): 402 (unpaid,
 * and a bad payload), 200 (and the same payload again), 409 paid, 410 ended, 503 (the facilitator
 * down), 502 (it lies), 404, 400, 431, then 429 from the rate limit.
 */
export async function exerciseX402(
  stage: Awaited<ReturnType<typeof x402Stage>>,
  prefix: string,
  create: (body: Record<string, unknown>) => Promise<{ invoice_id: string }>,
  send: Send,
  overlongId: string,
) {
  const path = (id: string) => `${prefix}/x402/${id}`;
  const signed = async (id: string) => {
    const unpaid = await send('GET', path(id));
    assert.equal(unpaid.status, 402, unpaid.body);
    return { 'PAYMENT-SIGNATURE': await handSignedPayment(stage.payerKey, unpaid.json().accepts[0] as Requirements) };
  };
  const base = await create({ chain: 'base', amount_usd: 1.5 });
  assert.equal((await send('GET', path(base.invoice_id), { headers: { 'PAYMENT-SIGNATURE': '!!!' } })).status, 402);
  const payment = await signed(base.invoice_id);
  assert.equal((await send('GET', path(base.invoice_id), { headers: payment })).status, 200);
  assert.equal((await send('GET', path(base.invoice_id), { headers: payment })).status, 200, 'the same payload: the first answer again');
  assert.equal((await send('GET', path(base.invoice_id))).status, 409);
  const short = await create({ chain: 'base', amount_usd: 1, expires_in: 1 });
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  assert.equal((await send('GET', path(short.invoice_id))).status, 410);

  stage.setFacilitator('down');
  const down = await create({ chain: 'eth', amount_usd: 2 });
  assert.equal((await send('GET', path(down.invoice_id), { headers: await signed(down.invoice_id) })).status, 503);
  stage.setFacilitator('lie');
  const lied = await create({ chain: 'eth', amount_usd: 3 });
  assert.equal((await send('GET', path(lied.invoice_id), { headers: await signed(lied.invoice_id) })).status, 502);

  assert.equal((await send('GET', path('missing'))).status, 404);
  assert.equal((await send('GET', path('%ff'))).status, 400);
  assert.equal((await send('GET', path(overlongId))).status, 431);
  let status = 0;
  for (let i = 0; i < 60 && status !== 429; i++) status = (await send('GET', path('missing'))).status;
  assert.equal(status, 429);
}
