import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../../core/clock.ts';
import { createRateLimiter, memoryWindows } from '../../../edge/http/sliding-window.ts';

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

  it('spareNewClients: a full overall window holds back the addresses already counted, never a fresh one', async () => {
    const clock = manualClock(T0);
    const limiter = createRateLimiter({ store: memoryWindows(), clock, name: 'signin', config: { perClient: 10, overall: 300 }, spareNewClients: true });
    const waits: number[] = [];
    for (let address = 0; address < 32; address++) for (let i = 0; i < 10; i++) waits.push(await limiter.take(`10.0.0.${address}`));
    assert.equal(waits.filter((w) => w === 0).length, 302, '300 overall, then the first attempt of each of the last two addresses');
    assert.equal(await limiter.take('10.0.0.1'), 60, 'a counted address waits for its own window');
    assert.equal(await limiter.take('10.0.0.31'), 60, 'an address counted past the ceiling waits for the overall one');
    assert.equal(await limiter.take('192.0.2.1'), 0, 'a fresh address goes ahead');
    const strict = createRateLimiter({ store: memoryWindows(), clock, name: 'signin', config: { perClient: 10, overall: 300 } });
    for (let address = 0; address < 30; address++) for (let i = 0; i < 10; i++) await strict.take(`10.0.0.${address}`);
    assert.equal(await strict.take('192.0.2.1'), 60, 'without it, the full overall window refuses everyone');
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
