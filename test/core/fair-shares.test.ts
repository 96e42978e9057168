import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../core/errors.ts';
import { shareLedger, shareRefusal, takeShare, unpaidShare, type ShareTier } from '../../core/fair-shares.ts';

const FREE: ShareTier = { plan: 'free', cap: 2, paying: false };
const PRO: ShareTier = { plan: 'pro', cap: 100, paying: true };
// 40 slots, 25 % kept: Free merchants hold 30 together, 35 counting newcomers' half of the reserve.
const BOUNDS = { total: 40, reservePercent: 25 };
const NAMES = { what: 'open MCP sessions', capSetting: 'CLOUD_MCP_SESSIONS_PER_PLAN', code: 'too_many_sessions' } as const;

describe('fair shares of an instance between plans', () => {
  it('the unpaid share: the total less the reserve, less half of it for a tenant holding none', () => {
    assert.equal(unpaidShare(BOUNDS, false), 30);
    assert.equal(unpaidShare(BOUNDS, true), 35);
    assert.equal(unpaidShare({ total: 1000, reservePercent: 20 }, false), 800);
    assert.equal(unpaidShare({ total: 10, reservePercent: 0 }, true), 10, 'no reserve: Free may take all');
    assert.equal(unpaidShare({ total: 4, reservePercent: 20 }, false), 4, 'the reserve rounds down: an instance of a few slots keeps none');
    assert.equal(unpaidShare({ total: 9, reservePercent: 20 }, false), 8);
    assert.equal(unpaidShare({ total: 9, reservePercent: 20 }, true), 8, 'paid plans keep at least half the reserve, rounded up');
  });

  const vectors: { why: string; tier: ShareTier; mine: number; unpaid: number; refusal: ReturnType<typeof shareRefusal> }[] = [
    { why: 'Free below its cap, the Free share open', tier: FREE, mine: 1, unpaid: 29, refusal: null },
    { why: 'Free at its plan cap', tier: FREE, mine: 2, unpaid: 0, refusal: 'plan_cap' },
    { why: 'Free holding one, the Free share full', tier: FREE, mine: 1, unpaid: 30, refusal: 'unpaid_share' },
    { why: 'a Free newcomer when the Free share is full: half the reserve', tier: FREE, mine: 0, unpaid: 30, refusal: null },
    { why: 'a Free newcomer past half the reserve', tier: FREE, mine: 0, unpaid: 35, refusal: 'unpaid_share' },
    { why: 'Pro whatever Free holds', tier: PRO, mine: 0, unpaid: 40, refusal: null },
    { why: 'Pro at its plan cap', tier: PRO, mine: 100, unpaid: 0, refusal: 'plan_cap' },
  ];
  for (const vector of vectors) {
    it(vector.why, () => {
      assert.equal(shareRefusal(BOUNDS, vector.tier, { mine: vector.mine, unpaid: vector.unpaid }), vector.refusal);
    });
  }

  it('50 Free tenants at a cap of 2 take 35 of 40 slots; the 5 left are a Pro tenant\'s; released slots count again', () => {
    const ledger = shareLedger();
    const releases: (() => void)[] = [];
    const refusals: ServiceError[] = [];
    for (let tenant = 0; tenant < 50; tenant++) {
      for (let slot = 0; slot < 3; slot++) {
        try {
          releases.push(takeShare(ledger, BOUNDS, NAMES, { id: `free-${tenant}`, tier: FREE }, () => 7));
        } catch (error) {
          refusals.push(error as ServiceError);
        }
      }
    }
    assert.equal(releases.length, 35);
    assert.equal(ledger.holdings({ id: 'pro', tier: PRO }).unpaid, 35);
    assert.ok(refusals.every((error) => error.code === 'too_many_sessions' && error.extra.retryAfterS === 7));
    const messages = new Set(refusals.map((error) => error.message.replace(/free-\d+/, '')));
    assert.deepEqual(messages, new Set([
      'The free plan holds at most 2 open MCP sessions per merchant on this instance (CLOUD_MCP_SESSIONS_PER_PLAN free=2); close one, or retry in 7 s.',
      "The free plans' share of this instance's open MCP sessions is taken (the rest is kept for paid plans: CLOUD_FAIR_SHARE_RESERVE); retry in 7 s, or upgrade the plan.",
    ]));
    for (let slot = 0; slot < 5; slot++) takeShare(ledger, BOUNDS, NAMES, { id: 'pro', tier: PRO }, () => 7);
    assert.equal(ledger.holdings({ id: 'pro', tier: PRO }).mine, 5);

    // Given back twice, counted once; the slot is a newcomer's again.
    releases[0]!();
    releases[0]!();
    assert.equal(ledger.holdings({ id: 'free-0', tier: FREE }).mine, 1);
    assert.equal(ledger.holdings({ id: 'free-0', tier: FREE }).unpaid, 34);
    takeShare(ledger, BOUNDS, NAMES, { id: 'free-49', tier: FREE }, () => 7);
    assert.throws(() => takeShare(ledger, BOUNDS, NAMES, { id: 'free-48', tier: FREE }, () => 7), /free plans' share/);
  });
});
