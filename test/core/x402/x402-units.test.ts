import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOCK_SKEW_S, paymentRequiredOf, requirementsOf, X402_MAX_TIMEOUT_S, type X402Offer } from '../../../core/x402/requirements.ts';
import { parseX402Settings, x402Secrets, x402SettingNames } from '../../../core/x402/x402-settings.ts';
import { claimSettlement, currentLock, releaseLapsed, settleClaim } from '../../../core/x402/settlement.repository.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { silentLogger } from '../../../core/log.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';

const offer = (expiresInMs: number, now: number): X402Offer => ({
  invoiceId: 'inv_1',
  network: 'eip155:8453',
  chainId: 8453,
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  amountDue: 12_500_000n,
  expiresAt: now + expiresInMs,
  domain: { name: 'USD Coin', version: '2' },
});

test('requirements: one exact offer (EIP-3009 named as the one authorization kind) for the amount due, never valid past the invoice less the clock skew, at most 300 s', () => {
  const now = Date.UTC(2026, 10, 26);
  assert.deepEqual(requirementsOf(offer(3_600_000, now), now), {
    scheme: 'exact',
    network: 'eip155:8453',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    amount: '12500000',
    payTo: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    maxTimeoutSeconds: X402_MAX_TIMEOUT_S,
    extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
  });
  assert.equal(requirementsOf(offer(72_900, now), now).maxTimeoutSeconds, 72 - CLOCK_SKEW_S, 'no longer than the time to expiry, less the skew a payer clock may be ahead');
  const required = paymentRequiredOf('https://shop.example/x402/inv_1', requirementsOf(offer(60_000, now), now), 'invalid_exact_evm_signature');
  assert.equal(required.x402Version, 2);
  assert.equal(required.error, 'invalid_exact_evm_signature');
  assert.equal(required.accepts.length, 1);
  assert.equal(paymentRequiredOf('https://shop.example/x402/inv_1', required.accepts[0]!).error, undefined);
});

test('settings: a chain facilitator wins over the shared one, which wins over the settler key; bad values are named, the key is a secret', () => {
  const key = `0x${'ab'.repeat(32)}`;
  const problems: string[] = [];
  const settings = parseX402Settings(defaultChains, { X402_SETTLER_KEY: key, X402_FACILITATOR_URL: 'https://facilitator.example/', ETH_X402_FACILITATOR_URL: 'https://eth.example' }, problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.settlement, {
    base: { kind: 'facilitator', url: 'https://facilitator.example' },
    eth: { kind: 'facilitator', url: 'https://eth.example' },
    polygon: { kind: 'facilitator', url: 'https://facilitator.example' },
    arbitrum: { kind: 'facilitator', url: 'https://facilitator.example' },
  });
  assert.equal(settings.settleTimeoutMs, 30_000);
  const keyOnly = parseX402Settings(defaultChains, { X402_SETTLER_KEY: 'ab'.repeat(32), X402_SETTLE_TIMEOUT_S: '5' }, problems);
  assert.deepEqual(Object.values(keyOnly.settlement), [
    { kind: 'settler', key },
    { kind: 'settler', key },
    { kind: 'settler', key },
    { kind: 'settler', key },
  ]);
  assert.equal(keyOnly.settleTimeoutMs, 5_000);
  assert.deepEqual(x402Secrets(keyOnly).sort(), [key, key.slice(2)].sort());
  assert.deepEqual(parseX402Settings(defaultChains, {}, problems).settlement, {}, 'nothing set: x402 off');

  assert.deepEqual(keyOnly.gasBudget, { perHour: 2_000_000n, perInvoice: 300_000n }, 'the default gas budget');
  assert.deepEqual(parseX402Settings(defaultChains, { X402_SETTLER_GAS_BUDGET: '500000, 100000' }, problems).gasBudget, { perHour: 500_000n, perInvoice: 100_000n });
  assert.deepEqual(problems, []);

  const bad: string[] = [];
  parseX402Settings(defaultChains, { X402_SETTLER_KEY: 'xprv-not-a-key', X402_FACILITATOR_URL: 'ftp://x', X402_SETTLE_TIMEOUT_S: '0' }, bad);
  assert.equal(bad.length, 3, bad.join('\n'));
  for (const budget of ['1000', '100,1000', '0,0', 'a,b']) {
    const budgetProblems: string[] = [];
    parseX402Settings(defaultChains, { X402_SETTLER_GAS_BUDGET: budget }, budgetProblems);
    assert.match(budgetProblems.join('\n'), /X402_SETTLER_GAS_BUDGET must be/, budget);
  }
  assert.ok(bad.every((problem) => !problem.includes('xprv-not-a-key')), 'the key is never echoed');
});

test('settings: x402 reads the EVM chains it is given, and no other', () => {
  const given = defaultChains.filter((chain) => chain.chain === 'btc' || chain.chain === 'arbitrum');
  const problems: string[] = [];
  const settings = parseX402Settings(given, { X402_FACILITATOR_URL: 'https://facilitator.example', BASE_X402_FACILITATOR_URL: 'https://base.example' }, problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.settlement, { arbitrum: { kind: 'facilitator', url: 'https://facilitator.example' } });
  assert.deepEqual(x402SettingNames(given), ['X402_SETTLER_KEY', 'X402_FACILITATOR_URL', 'X402_SETTLE_TIMEOUT_S', 'X402_SETTLER_GAS_BUDGET', 'ARBITRUM_X402_FACILITATOR_URL']);
});

test('the settlement lock: one payer at a time, a refused attempt frees it, a settle that never answered holds it however long until released as lapsed (its nonce only), a sent one never is', async () => {
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains, { logger: silentLogger });
  try {
    const { db } = database;
    const t0 = 1_000_000;
    const claim = (nonce: string, now: number) => claimSettlement(db, { invoiceId: 'inv_1', merchantId: 'm', payer: '0xpayer', nonce, validBefore: t0 / 1000 + 300, network: 'eip155:8453', now });
    assert.deepEqual(await claim('0xa', t0), { claimed: true });
    const taken = await claim('0xb', t0 + 1);
    assert.equal(taken.claimed, false);
    assert.equal(!taken.claimed && taken.current.nonce, '0xa');
    assert.equal(!taken.claimed && taken.current.valid_before, t0 / 1000 + 300);
    await settleClaim(db, 'inv_1', '0xa', { state: 'refused', now: t0 + 2 });
    assert.deepEqual(await claim('0xb', t0 + 3), { claimed: true }, 'nothing was sent: the next payer may try');
    assert.equal((await claim('0xc', t0 + 3 + 24 * 3600_000)).claimed, false, 'a settle that never answered is never taken over by age');
    assert.equal(await releaseLapsed(db, { invoice_id: 'inv_1', nonce: '0xa' }, t0 + 4), false, 'only the lapsed authorization\'s own lock is released');
    assert.equal((await currentLock(db, 'inv_1'))?.nonce, '0xb');
    assert.equal(await releaseLapsed(db, { invoice_id: 'inv_1', nonce: '0xb' }, t0 + 5), true);
    assert.equal(await currentLock(db, 'inv_1'), undefined, 'a lapsed lock holds nothing');
    assert.deepEqual(await claim('0xc', t0 + 6), { claimed: true }, 'released as lapsed: the next payer may pay');
    await settleClaim(db, 'inv_1', '0xc', { state: 'sent', txHash: '0xtx', now: t0 + 7 });
    assert.equal(await releaseLapsed(db, { invoice_id: 'inv_1', nonce: '0xc' }, t0 + 8), false, 'a sent settlement is never released');
    assert.equal((await claim('0xd', t0 + 100 * 3600_000)).claimed, false, 'a sent settlement holds the invoice for good');
    await settleClaim(db, 'inv_1', '0xd', { state: 'refused', now: t0 });
    const row = await db.selectFrom('x402_settlements').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual([row.state, row.nonce, row.tx_hash], ['sent', '0xc', '0xtx'], "another nonce's outcome never touches the lock");
  } finally {
    await database.close();
  }
});
