export interface PollCandidate {
  address: string;
  /** When its invoice was created, epoch ms. */
  createdAt: number;
  /** When it was last polled, epoch ms; null if never (by this process). */
  polledAt: number | null;
  /** Just subscribed on the socket: poll once whatever its turn. */
  urgent: boolean;
}

/**
 * Payment model behind the order. A customer pays most likely right after opening the invoice: the
 * chance of a payment per second is taken as proportional to 1 / (age + PAY_HALF_LIFE_MS). And a
 * poll only matters for a payment not yet in a block, so only the last UNCONFIRMED_WINDOW_MS (about
 * one block interval) since the last poll counts: an invoice unpolled for an hour is worth no more
 * than one unpolled for ten minutes. An address's worth is then the chance that a payment arrived
 * in that window since its last poll: ln((age + h) / (from + h)).
 */
const PAY_HALF_LIFE_MS = 60_000;
const UNCONFIRMED_WINDOW_MS = 10 * 60_000;

function worth(c: PollCandidate, now: number): number {
  const age = Math.max(0, now - c.createdAt);
  const polledAge = c.polledAt === null ? 0 : c.polledAt - c.createdAt;
  const from = Math.max(0, polledAge, age - UNCONFIRMED_WINDOW_MS);
  return Math.log((age + PAY_HALF_LIFE_MS) / (from + PAY_HALF_LIFE_MS));
}

/**
 * Which open invoices' addresses to poll now, at most `count`, most worth first (urgent ones before
 * all). An address is due once its worth reaches that of a fresh invoice after `minGapMs`: a new
 * invoice is polled about every `minGapMs` at first, one an hour old about every 10 minutes, so a
 * quiet shop spends little and a busy one spends its polls where payments are likely.
 */
export function addressesToPoll(candidates: readonly PollCandidate[], now: number, count: number, minGapMs: number): string[] {
  const threshold = Math.log((minGapMs + PAY_HALF_LIFE_MS) / PAY_HALF_LIFE_MS);
  const due: Array<{ address: string; score: number }> = [];
  for (const c of candidates) {
    const score = c.urgent ? Number.POSITIVE_INFINITY : worth(c, now);
    if (score >= threshold) due.push({ address: c.address, score });
  }
  due.sort((a, b) => b.score - a.score);
  return due.slice(0, count).map((d) => d.address);
}
