import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { x402ExactPermit2ProxyAddress } from '@x402/evm';
import type { RunningListener } from '../../../listener/app.ts';
import { createLogger } from '../../../core/log.ts';
import type { X402PaymentRequired } from '../../../shared/index.ts';
import { startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { decodePaymentRequiredHeader, handSignedPayment, randomAccount, type Requirements } from '../../helpers/x402-agent.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { postJson } from '../../helpers/listener.ts';
import { startX402Listener } from '../../helpers/x402-listener.ts';

type Envelope = { error?: { code?: unknown; reason?: unknown } };
type Json = Record<string, any>;

/** Every log line the listener writes, parsed: a test reads their levels. */
function capturedLog() {
  const lines: Json[] = [];
  return { lines, logger: createLogger({ write: (line) => lines.push(JSON.parse(line) as Json) }) };
}

/** A facilitator that counts what reaches it and answers nothing (the connection drops). */
async function countingFacilitator() {
  const seen: string[] = [];
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    seen.push(req.url ?? '');
    res.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function listenerOn(chain: EvmTestChain, settlement: Record<string, string>, logger: ReturnType<typeof createLogger>): Promise<RunningListener> {
  return startX402Listener(chain, { BASE_CONFIRMATIONS: '2', X402_SETTLE_TIMEOUT_S: '2', ...settlement }, { logger, tuning: { evm: { pollIntervalMs: 100 } } });
}

async function unpaidInvoice(listener: RunningListener) {
  const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 2 });
  assert.equal(created.status, 201, created.text);
  const invoice = created.json as { invoice_id: string; receive_address: string; x402_url: string };
  const answer = await fetch(invoice.x402_url);
  assert.equal(answer.status, 402);
  const requirements = (decodePaymentRequiredHeader(answer.headers.get('PAYMENT-REQUIRED')!) as X402PaymentRequired).accepts[0] as Requirements;
  return { ...invoice, requirements };
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const decoded = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString()) as Json;

/** A Permit2 authorization of the `exact` scheme's shape, for the same payment (never checked: its presence is refused). */
const permit2Of = (payload: Json) => ({
  from: payload.payload.authorization.from,
  permitted: { token: payload.accepted.asset, amount: payload.accepted.amount },
  spender: x402ExactPermit2ProxyAddress,
  nonce: String(BigInt(`0x${randomBytes(8).toString('hex')}`)),
  deadline: payload.payload.authorization.validBefore,
  witness: { to: payload.accepted.payTo, validAfter: '0' },
});

/** Payloads with one thing wrong (or one kind too many), each from a well-signed payment. */
function shapes(good: string): Array<[string, string]> {
  const edited = (what: string, edit: (payload: Json) => void): [string, string] => {
    const payload = decoded(good);
    edit(payload);
    return [what, base64(JSON.stringify(payload))];
  };
  const auth = (payload: Json) => payload.payload.authorization as Json;
  return [
    ['not base64', '!!!not base64!!!'],
    ['base64 of text', base64('hello')],
    ['base64 of truncated JSON', base64('{"x402Version":2,"payload":')],
    ['base64 of null', base64('null')],
    ['base64 of a string', base64('"abc"')],
    ['base64 of a number', base64('42')],
    ['base64 of an array', base64('[]')],
    ['base64 of an empty object', base64('{}')],
    ['base64 of binary', randomBytes(600).toString('base64')],
    edited('x402Version as a string', (p) => void (p.x402Version = '2')),
    edited('accepted null', (p) => void (p.accepted = null)),
    edited('accepted a string', (p) => void (p.accepted = 'exact')),
    edited('payload a string', (p) => void (p.payload = 'abc')),
    edited('payload null', (p) => void (p.payload = null)),
    edited('payload an array', (p) => void (p.payload = [])),
    edited('authorization null', (p) => void (p.payload.authorization = null)),
    edited('authorization a string', (p) => void (p.payload.authorization = 'abc')),
    edited('authorization missing', (p) => void delete p.payload.authorization),
    edited('signature missing', (p) => void delete p.payload.signature),
    edited('signature a number', (p) => void (p.payload.signature = 123)),
    edited('signature not hex', (p) => void (p.payload.signature = 'not hex')),
    edited('value a number', (p) => void (auth(p).value = 2_000_000)),
    edited('value negative', (p) => void (auth(p).value = '-1')),
    edited('validBefore null', (p) => void (auth(p).validBefore = null)),
    edited('validAfter an object', (p) => void (auth(p).validAfter = {})),
    edited('validBefore of 80 digits', (p) => void (auth(p).validBefore = '9'.repeat(80))),
    edited('nonce short', (p) => void (auth(p).nonce = '0x1234')),
    edited('from not an address', (p) => void (auth(p).from = 'not an address')),
    edited('an extra authorization field', (p) => void (auth(p).spender = x402ExactPermit2ProxyAddress)),
    edited('Permit2 beside EIP-3009', (p) => void (p.payload.permit2Authorization = permit2Of(p))),
    edited('Permit2 instead of EIP-3009', (p) => void ((p.payload.permit2Authorization = permit2Of(p)), delete p.payload.authorization)),
    edited('Permit2 named in accepted', (p) => void (p.accepted.extra = { ...p.accepted.extra, assetTransferMethod: 'permit2' })),
    edited('an EIP-2612 permit beside it', (p) => void (p.payload.eip2612 = { value: '1' })),
  ];
}

test('x402 payload shapes: 33 malformed headers and payloads (not base64, not JSON, null, wrong types, missing fields, other authorization kinds) each answer a 400/402 envelope with a stable code, never 500, log no error, and reach no facilitator', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const payer = randomAccount();
  await chain.usdc.transfer(payer.account.address, 100_000_000n, 1);
  const facilitator = await countingFacilitator();
  const log = capturedLog();
  const listener = await listenerOn(chain, { X402_FACILITATOR_URL: facilitator.url }, log.logger);
  try {
    const invoice = await unpaidInvoice(listener);
    const good = await handSignedPayment(payer.key, invoice.requirements);
    const cases = shapes(good);
    assert.ok(cases.length >= 30);
    const codes = new Map<string, string>();
    for (const [what, header] of cases) {
      const answer = await fetch(invoice.x402_url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await answer.json()) as Envelope;
      assert.ok(answer.status === 400 || answer.status === 402, `${what}: ${answer.status} ${JSON.stringify(body)}`);
      assert.equal(typeof body.error?.code, 'string', what);
      assert.equal(typeof body.error?.reason, 'string', `${what}: a stable reason`);
      codes.set(what, `${String(body.error!.code)}/${String(body.error!.reason)}`);
    }
    for (const kind of ['Permit2 beside EIP-3009', 'Permit2 instead of EIP-3009', 'Permit2 named in accepted', 'an EIP-2612 permit beside it']) {
      assert.equal(codes.get(kind), 'invalid_payment/unsupported_asset_transfer_method', kind);
    }
    assert.deepEqual(facilitator.seen, [], 'nothing reached the facilitator');
    assert.deepEqual(log.lines.filter((line) => line.level === 'error'), [], 'no error-level log');
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 0n);
    // The same payment well formed does reach it: the count above means something.
    const sent = await fetch(invoice.x402_url, { headers: { 'PAYMENT-SIGNATURE': good } });
    assert.equal(sent.status, 503);
    assert.ok(facilitator.seen.length > 0);
  } finally {
    await listener.stop({ graceMs: 0 });
    await facilitator.close();
    await chain.close();
  }
});

test('x402 payload shapes: a hybrid EIP-3009 + Permit2 payload is refused before the built-in settler sends anything; the same EIP-3009 authorization alone then settles', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const settler = randomAccount();
  const payer = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  await chain.usdc.transfer(payer.account.address, 100_000_000n, 1);
  const log = capturedLog();
  const listener = await listenerOn(chain, { X402_SETTLER_KEY: settler.key }, log.logger);
  const sentBySettler = async () => Number(await chain.anvil.rpc<string>('eth_getTransactionCount', [settler.account.address, 'pending']));
  try {
    const invoice = await unpaidInvoice(listener);
    const good = await handSignedPayment(payer.key, invoice.requirements);
    const hybrid = decoded(good);
    hybrid.payload.permit2Authorization = permit2Of(hybrid);
    const refused = await fetch(invoice.x402_url, { headers: { 'PAYMENT-SIGNATURE': base64(JSON.stringify(hybrid)) } });
    assert.equal(refused.status, 402);
    assert.equal(((await refused.json()) as Envelope).error?.reason, 'unsupported_asset_transfer_method');
    assert.equal(decodePaymentRequiredHeader(refused.headers.get('PAYMENT-REQUIRED')!).error, 'unsupported_asset_transfer_method');
    assert.equal(await sentBySettler(), 0, 'the settler sent nothing');
    assert.equal(await chain.usdc.balanceOf(payer.account.address), 100_000_000n);
    const paid = await fetch(invoice.x402_url, { headers: { 'PAYMENT-SIGNATURE': good } });
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 2_000_000n);
    assert.deepEqual(log.lines.filter((line) => line.level === 'error'), []);
  } finally {
    await listener.stop({ graceMs: 0 });
    await chain.close();
  }
});
