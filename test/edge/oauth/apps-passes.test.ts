import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manualClock } from '../../../core/clock.ts';
import { appsPasses } from '../../../edge/oauth/apps-page.ts';

test('a Connected apps pass names its account for ten minutes of the injected clock, and nothing once altered', () => {
  const clock = manualClock();
  const passes = appsPasses('a csrf key', clock);
  const pass = passes.passFor('merchant.with.dots');
  assert.equal(passes.accountOfPass(pass), 'merchant.with.dots');
  clock.advance(10 * 60_000 - 1);
  assert.equal(passes.accountOfPass(pass), 'merchant.with.dots');
  clock.advance(1);
  assert.equal(passes.accountOfPass(pass), null, 'expired by the clock the server was given');

  const fresh = passes.passFor('m1');
  const [payload, mac] = fresh.split('.');
  const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('m1', 'm2')).toString('base64url');
  assert.equal(passes.accountOfPass(`${forged}.${mac}`), null);
  assert.equal(appsPasses('another key', clock).accountOfPass(fresh), null);
  assert.equal(passes.accountOfPass(undefined), null);
  assert.equal(passes.accountOfPass('no-mac'), null);
});
