import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressesToPoll, type PollCandidate } from '../../../core/btc/address-poll-order.ts';

const MIN = 60_000;
const now = 10 * 60 * MIN;

test('urgent first, then the most overdue for its age; nothing before it is due', () => {
  const candidates: PollCandidate[] = [
    { address: 'old-polled-long-ago', createdAt: now - 60 * MIN, polledAt: now - 30 * MIN, urgent: false }, // due every 15 min: 2× overdue
    { address: 'new-never-polled', createdAt: now - 20_000, polledAt: null, urgent: false },
    { address: 'new-just-polled', createdAt: now - 2 * MIN, polledAt: now - 5_000, urgent: false }, // due every 30 s
    { address: 'resubscribed', createdAt: now - 50 * MIN, polledAt: now - 1_000, urgent: true },
  ];
  assert.deepEqual(addressesToPoll(candidates, now, 3, 10_000), ['resubscribed', 'new-never-polled', 'old-polled-long-ago']);
  assert.deepEqual(addressesToPoll(candidates, now, 10, 10_000).includes('new-just-polled'), false, 'not due yet');
  assert.deepEqual(addressesToPoll([], now, 3, 10_000), []);
});

/**
 * How long after payment an address poll sees it, 2 polls per 10 s pass (12 requests a minute), by
 * the invoice's age at payment. `arrivalsPerHour` invoices open steadily for an hour before (each
 * expiring after an hour), plus, for a cold start, `backlog` open invoices this process never polled
 * (created evenly over the last hour). Deterministic.
 */
function secondsToSee(ageAtPaymentMin: number, arrivalsPerHour: number, backlog: number): number | null {
  const passMs = 10_000;
  const polledAt = new Map<string, number>();
  const open = Array.from({ length: backlog }, (_, i) => ({ address: `b${i}`, createdAt: -(i * 60 * MIN) / backlog }));
  const warmUp = arrivalsPerHour ? -60 * MIN : 0;
  let arrived = 0;
  const payAt = ageAtPaymentMin * MIN;
  for (let clock = warmUp; clock <= 120 * MIN; clock += passMs) {
    while (arrivalsPerHour && warmUp + (arrived * 60 * MIN) / arrivalsPerHour <= clock) {
      open.push({ address: `n${arrived}`, createdAt: warmUp + (arrived * 60 * MIN) / arrivalsPerHour });
      arrived++;
    }
    if (clock === 0) open.push({ address: 'paid', createdAt: 0 });
    const live = open.filter((c) => c.address === 'paid' || clock - c.createdAt < 60 * MIN);
    const candidates = live.map((c) => ({ ...c, polledAt: polledAt.get(c.address) ?? null, urgent: false }));
    for (const address of addressesToPoll(candidates, clock, 2, 10_000)) {
      polledAt.set(address, clock);
      if (address === 'paid' && clock >= payAt) return (clock - payAt) / 1_000;
    }
  }
  return null;
}

test('latency of polling without the socket, by the age of the invoice at payment (12 polls/min)', (t) => {
  const ages = [0.5, 2, 10, 30];
  const steady = ages.map((age) => secondsToSee(age, 100, 0));
  const cold = ages.map((age) => secondsToSee(age, 0, 1_000));
  const show = (list: (number | null)[]) => list.map((s) => (s === null ? 'its block' : `${s} s`)).join(' / ');
  t.diagnostic(`paid at age ${ages.join(' / ')} min, seen by a poll after: 100 invoices/h ${show(steady)}; cold start with 1,000 open ${show(cold)}`);
  // At a moderate load the polls go where payments are likely: a fresh invoice's payment is seen within one or two minutes.
  assert.ok(steady[0] !== null && steady[0] <= 30, `100/h, paid at 30 s: ${steady[0]} s`);
  assert.ok(steady[1] !== null && steady[1] <= 120, `100/h, paid at 2 min: ${steady[1]} s`);
});
