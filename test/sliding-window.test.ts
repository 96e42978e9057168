import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../core/clock.ts';
import { createRateLimiter, memoryWindows } from '../edge/http/sliding-window.ts';

const T0 = Date.UTC(2026, 4, 1, 9);

describe('sliding window over the memory store', () => {
  it('a client window and the overall window: either full refuses, Retry-After until the oldest leaves', async () => {
    const clock = manualClock(T0);
    const limiter = createRateLimiter({ store: memoryWindows(), clock, name: 'invoice', config: { perClient: 2, overall: 3 } });
    assert.equal(await limiter.take('10.0.0.1'), 0);
    clock.advance(10_000);
    assert.equal(await limiter.take('10.0.0.1'), 0);
    assert.equal(await limiter.take('10.0.0.1'), 50, 'client full: its oldest leaves at T0+60 s');
    assert.equal(await limiter.take('10.0.0.2'), 0);
    assert.equal(await limiter.take('10.0.0.3'), 50, 'overall full, and the refusals were not counted');
    clock.set(T0 + 60_000);
    assert.equal(await limiter.take('10.0.0.3'), 0, 'one slot frees when the oldest leaves');
    assert.ok((await limiter.take('10.0.0.4')) > 0, 'and only one');
  });

  it('release gives back the newest slot of the client and overall', async () => {
    const clock = manualClock(T0);
    const limiter = createRateLimiter({ store: memoryWindows(), clock, name: 'invoice', config: { perClient: 1, overall: 2 } });
    assert.equal(await limiter.take('a'), 0);
    assert.equal(await limiter.take('b'), 0);
    assert.ok((await limiter.take('a')) > 0);
    await limiter.release('a');
    assert.equal(await limiter.take('a'), 0, 'the released slot is free again for the client');
    assert.ok((await limiter.take('c')) > 0, 'and overall it is taken again');
  });

  it('the sweep forgets idle buckets and keeps live ones', async () => {
    const clock = manualClock(T0);
    const store = memoryWindows();
    const limiter = createRateLimiter({ store, clock, name: 'invoice', config: { perClient: 5, overall: Number.MAX_SAFE_INTEGER }, sweepEvery: 3 });
    await limiter.take('idle');
    clock.advance(60_000);
    await limiter.take('live');
    await limiter.take('live');
    const kept: number[][] = [];
    await store.update(['invoice:idle', 'invoice:live'], (times) => {
      kept.push(...times);
      return null;
    });
    assert.deepEqual(kept, [[], [T0 + 60_000, T0 + 60_000]]);
  });
});
