import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { manualClock } from '../../../core/clock.ts';
import { loadConfig } from '../../../listener/config.ts';
import { ConfigError } from '../../../edge/settings.ts';
import { budgetedFetch, createRequestBudget, fetchWithin, retryAfterMs, sourceLabel, type RequestBudgetOptions } from '../../../core/net/request-budget.ts';
import { DEFAULT_BUDGETS, budgetLimitsFor, createSourceBudgets } from '../../../core/net/source-budgets.ts';

const START = Date.UTC(2026, 0, 1);

/** A budget on a hand-moved clock whose sleep moves the clock, so waits cost no real time. */
function harness(options: Partial<RequestBudgetOptions> = {}) {
  const clock = manualClock(START);
  const sleeps: number[] = [];
  const budget = createRequestBudget({
    label: 'https://esplora.example',
    ratePerSec: 2,
    burst: 4,
    clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    ...options,
  });
  /** Acquires `n` times one after the other and gives the clock offset (ms) each was granted at. */
  const grants = async (n: number) => {
    const at: number[] = [];
    for (let i = 0; i < n; i++) {
      await budget.acquire();
      at.push(clock.now() - START);
    }
    return at;
  };
  return { clock, sleeps, budget, grants };
}

describe('Retry-After parsing (RFC 9110 §10.2.3)', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  const vectors: Array<[string | null, number | null, string]> = [
    ['120', 120_000, 'delta-seconds'],
    ['0', 0, 'zero seconds'],
    [' 5 ', 5_000, 'surrounding whitespace'],
    ['Wed, 21 Oct 2015 07:28:30 GMT', 30_000, 'IMF-fixdate'],
    ['Wednesday, 21-Oct-15 07:28:30 GMT', 30_000, 'obsolete RFC 850 date'],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0, 'a date in the past means no wait'],
    ['-5', null, 'negative seconds'],
    ['1.5', null, 'fractional seconds'],
    ['12', 12_000, 'digits are seconds, never a year'],
    ['soon', null, 'garbage'],
    ['', null, 'empty'],
    [null, null, 'absent'],
  ];
  for (const [value, expected, why] of vectors) {
    test(`${JSON.stringify(value)}: ${why}`, () => assert.equal(retryAfterMs(value, now), expected));
  }
});

describe('request budget', () => {
  test('a burst goes at once, then requests are spaced at the rate', async () => {
    const { grants } = harness({ ratePerSec: 2, burst: 4 });
    assert.deepEqual(await grants(7), [0, 0, 0, 0, 500, 1000, 1500]);
  });

  test('the bucket refills while idle, never beyond the burst', async () => {
    const { clock, grants } = harness({ ratePerSec: 2, burst: 4 });
    await grants(4);
    clock.advance(60_000);
    const at = await grants(6);
    assert.deepEqual(
      at.map((t) => t - 60_000),
      [0, 0, 0, 0, 500, 1000],
    );
  });

  test('Retry-After in seconds holds every request until the window ends', async () => {
    const { budget, grants } = harness({ ratePerSec: 100, burst: 100 });
    await grants(1);
    budget.record(429, '30');
    assert.deepEqual(await grants(3), [30_000, 30_000, 30_000]);
  });

  test('Retry-After as an HTTP-date holds requests until that date', async () => {
    const { budget, grants } = harness({ ratePerSec: 100, burst: 100 });
    await grants(1);
    budget.record(429, new Date(START + 45_000).toUTCString());
    assert.deepEqual(await grants(1), [45_000]);
  });

  test('503 with Retry-After opens a window; 503 without it does not', async () => {
    const { budget, grants } = harness({ ratePerSec: 100, burst: 100 });
    budget.record(503, null);
    assert.deepEqual(await grants(1), [0]);
    budget.record(503, '7');
    assert.deepEqual(await grants(1), [7_000]);
    assert.equal(budget.stats().http_429, 0);
  });

  test('an absurd Retry-After is capped', async () => {
    const { budget, grants } = harness({ ratePerSec: 100, burst: 100, maxRetryAfterMs: 600_000 });
    budget.record(429, String(30 * 24 * 3600));
    assert.deepEqual(await grants(1), [600_000]);
  });

  test('429 without Retry-After backs off exponentially up to the cap; success resets the streak', async () => {
    // random() = 0.999… gives the top of each full-jitter range, so the ceilings show.
    const { budget, grants } = harness({ ratePerSec: 1000, burst: 1000, random: () => 0.999999, baseBackoffMs: 1_000, maxBackoffMs: 8_000 });
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [before] = await grants(1);
      budget.record(429, null);
      const [after] = await grants(1);
      waits.push(after - before);
    }
    assert.deepEqual(waits, [999, 1_999, 3_999, 7_999, 7_999, 7_999]);
    budget.record(200, null);
    const [before] = await grants(1);
    budget.record(429, 'not a date');
    const [after] = await grants(1);
    assert.equal(after - before, 999, 'an unreadable Retry-After backs off like none, from the first step after a success');
  });

  test('backoff uses full jitter: every wait lies in [0, ceiling)', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    const { budget, grants } = harness({ ratePerSec: 1000, burst: 1000, random, baseBackoffMs: 1_000, maxBackoffMs: 4_000 });
    const waits: number[] = [];
    for (let i = 0; i < 200; i++) {
      const [before] = await grants(1);
      budget.record(429, null);
      const [after] = await grants(1);
      waits.push(after - before);
      if (i % 4 === 3) budget.record(200, null);
    }
    const ceilings = [1_000, 2_000, 4_000, 4_000];
    waits.forEach((wait, i) => assert.ok(wait >= 0 && wait < ceilings[i % 4], `wait ${wait} at step ${i % 4}`));
    const spread = new Set(waits.map((w) => Math.floor(w / 250)));
    assert.ok(spread.size >= 8, 'the waits are spread over the range, not one fixed value');
  });

  test('answers to requests already in flight when the window opened do not grow the backoff', async () => {
    const { budget, grants } = harness({ ratePerSec: 1000, burst: 1000, random: () => 0.999999 });
    await grants(5);
    for (let i = 0; i < 5; i++) budget.record(429, null);
    assert.deepEqual(await grants(1), [999]);
  });

  test('waiting callers are served in arrival order', async () => {
    const { budget } = harness({ ratePerSec: 1, burst: 1 });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => budget.acquire().then(() => order.push(i))));
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
  });

  test('stats: requests, 429s and when the next request may go', async () => {
    const { clock, budget, grants } = harness({ ratePerSec: 1, burst: 2, label: 'https://mempool.space' });
    assert.deepEqual(budget.stats(), { label: 'https://mempool.space', requests: 0, http_429: 0, next_request_at: null });
    await grants(2);
    assert.equal(budget.stats().next_request_at, new Date(START + 1_000).toISOString(), 'bucket empty: next token in 1 s');
    budget.record(429, '20');
    assert.deepEqual(budget.stats(), {
      label: 'https://mempool.space',
      requests: 2,
      http_429: 1,
      next_request_at: new Date(START + 20_000).toISOString(),
    });
    clock.advance(20_000);
    assert.equal(budget.stats().next_request_at, null);
  });

  test('rejects a rate or burst that would never let a request go', () => {
    assert.throws(() => harness({ ratePerSec: 0 }));
    assert.throws(() => harness({ burst: 0 }));
  });

  test('sourceLabel keeps scheme, host and port, never a path key or credentials', () => {
    assert.equal(sourceLabel('https://base-mainnet.g.alchemy.com/v2/SECRETKEY'), 'https://base-mainnet.g.alchemy.com');
    assert.equal(sourceLabel('http://user:pass@127.0.0.1:8332/wallet/x?k=1'), 'http://127.0.0.1:8332');
  });
});

describe('429 storm through budgetedFetch', () => {
  test('many concurrent callers against a stricter server: no request inside a window, every call eventually answered', async () => {
    const clock = manualClock(START);
    let seed = 42;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    // The server allows 3 req/s with bursts of 3 and answers 429 past that, rotating the three
    // Retry-After styles. Its window opens when it answers; a request arriving later inside it is a
    // violation (requests sent at the same instant as the 429 were already in flight).
    const server = { tokens: 3, at: START, windowEnd: 0, windowOpenedAt: 0, served: 0, refused: 0, violations: 0, style: 0 };
    const serverFetch = (async () => {
      const now = clock.now();
      if (now < server.windowEnd && now > server.windowOpenedAt) server.violations++;
      server.tokens = Math.min(3, server.tokens + ((now - server.at) / 1000) * 3);
      server.at = now;
      if (server.tokens < 1 || now < server.windowEnd) {
        server.refused++;
        const style = server.style++ % 3;
        let retryAfter: string | null = null;
        let end = now;
        if (style === 0) {
          retryAfter = '2';
          end = now + 2_000;
        } else if (style === 1) {
          end = Math.ceil((now + 1_500) / 1000) * 1000;
          retryAfter = new Date(end).toUTCString();
        }
        if (end > server.windowEnd) {
          server.windowEnd = end;
          server.windowOpenedAt = now;
        }
        return new Response('slow down', { status: 429, headers: retryAfter ? { 'retry-after': retryAfter } : {} });
      }
      server.tokens -= 1;
      server.served++;
      return new Response('ok');
    }) as typeof fetch;
    // The client is configured faster than the server allows, so 429s do happen.
    const budget = createRequestBudget({
      label: 'http://storm.test',
      ratePerSec: 10,
      burst: 20,
      clock,
      random,
      // Requests already granted complete before the clock moves on: the server answers instantly.
      sleep: async (ms) => {
        await new Promise((resolve) => setImmediate(resolve));
        clock.advance(ms);
      },
    });
    const budgeted = budgetedFetch(serverFetch, budget);
    const CALLERS = 40;
    const CALLS_EACH = 5;
    let answered = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        for (let i = 0; i < CALLS_EACH; i++) {
          // Bounded, so a client that hammers inside windows fails here rather than spinning forever.
          for (let attempt = 0; attempt < 100; attempt++) {
            if ((await budgeted('http://storm.test/x')).status !== 429) {
              answered++;
              break;
            }
          }
        }
      }),
    );
    assert.equal(answered, CALLERS * CALLS_EACH);
    assert.equal(server.violations, 0, 'no request was sent inside an open Retry-After or backoff window');
    assert.ok(server.refused > 0, 'the storm did happen');
    const stats = budget.stats();
    assert.equal(stats.http_429, server.refused);
    assert.equal(stats.requests, server.served + server.refused);
  });
});

describe('budgets per source', () => {
  const none = { btc: {}, base: {} };

  test('defaults: third-party sources are held well under public limits; your own node is not', () => {
    assert.deepEqual(budgetLimitsFor(none, 'btc', 'https://mempool.space/api'), { ratePerSec: 1, burst: 10 });
    assert.deepEqual(budgetLimitsFor(none, 'base', 'https://mainnet.base.org'), { ratePerSec: 3, burst: 12 });
    assert.deepEqual(budgetLimitsFor(none, 'btc', 'https://node.example:8332', true), DEFAULT_BUDGETS.own, 'Bitcoin Core');
    assert.deepEqual(budgetLimitsFor(none, 'base', 'http://127.0.0.1:8545'), DEFAULT_BUDGETS.own, 'loopback');
    assert.deepEqual(budgetLimitsFor({ btc: { ratePerSec: 0.5 }, base: {} }, 'btc', 'https://mempool.space/api'), { ratePerSec: 0.5, burst: 10 });
  });

  test('the settings are read and checked with the rest of the configuration', () => {
    const config = loadConfig({ BTC_SOURCE_RATE_PER_S: '0.5', BTC_SOURCE_BURST: '4', BASE_RPC_RATE_PER_S: '', BASE_RPC_BURST: '20' }, defaultChains);
    assert.deepEqual(config.sourceBudgets, { btc: { ratePerSec: 0.5, burst: 4 }, base: { ratePerSec: undefined, burst: 20 } });
    assert.throws(
      () => loadConfig({ BTC_SOURCE_RATE_PER_S: '0', BASE_RPC_BURST: '1.5' }, defaultChains),
      (error: ConfigError) => error.problems.some((p) => p.startsWith('BTC_SOURCE_RATE_PER_S')) && error.problems.some((p) => p.startsWith('BASE_RPC_BURST')),
    );
  });

  test('one budget per URL, however many watchers read it (Cloud merchants share it)', () => {
    const budgets = createSourceBudgets({ settings: none });
    const a = budgets.forUrl('btc', 'https://mempool.space/api');
    assert.equal(budgets.forUrl('btc', 'https://mempool.space/api'), a);
    budgets.forUrl('base', 'https://base-mainnet.g.alchemy.com/v2/KEY');
    assert.deepEqual(
      budgets.stats().map((s) => s.label),
      ['https://mempool.space', 'https://base-mainnet.g.alchemy.com'],
    );
  });
});

describe('a header sync sprint and time caps counted from when a request goes', () => {
  test('a sprinting budget lets requests go at its sprint rate, and halves it on a 429', async () => {
    const { budget, grants } = harness({ ratePerSec: 1, burst: 1 });
    budget.sprint({ ratePerSec: 4, burst: 1 });
    assert.deepEqual(await grants(3), [0, 250, 500]);
    budget.record(429, '0');
    assert.deepEqual((await grants(2)).map((at) => at - 500), [500, 1000], 'two a second after the 429');
    budget.sprint(null);
    assert.deepEqual((await grants(1)).map((at) => at - 1500), [1000], 'the usual one a second');
  });

  test("a request waiting out a Retry-After window longer than its timeout is not aborted: the timeout starts once it may go", async () => {
    const served: number[] = [];
    const budget = createRequestBudget({ label: 'http://slow.test', ratePerSec: 100, burst: 10, clock: { now: () => Date.now() }, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    const fetched = (async (_input: unknown, init?: RequestInit) => {
      served.push(Date.now());
      assert.equal(init?.signal?.aborted, false, 'not aborted when it goes');
      return new Response('ok');
    }) as typeof fetch;
    const paced = budgetedFetch(fetched, budget);
    budget.record(429, '1');
    const started = Date.now();
    const res = await fetchWithin(paced, 'http://slow.test/x', 300);
    assert.equal(await res.text(), 'ok');
    assert.ok(served[0] - started >= 900, 'sent after the window');
  });
});
