export interface PollCandidate {
  address: string;
  /** When its invoice was created, epoch ms. */
  createdAt: number;
  /** When it was last polled, epoch ms; null if never. */
  polledAt: number | null;
  /** Just subscribed on the socket, or the socket just dropped: poll once whatever its turn. */
  urgent: boolean;
}

/**
 * Which open invoices' addresses to poll now, at most `count`. A customer usually pays within
 * minutes of opening the invoice, so an address is due again after a quarter of its invoice's age
 * (at least `minIntervalMs`): a 1-minute-old invoice every 15 s, an hour-old one every 15 min. The
 * most overdue (by that measure) go first, urgent ones before all; none is polled before it is due,
 * so a quiet shop spends nothing.
 */
export function addressesToPoll(candidates: readonly PollCandidate[], now: number, count: number, minIntervalMs: number): string[] {
  const due: Array<{ address: string; overdue: number }> = [];
  for (const c of candidates) {
    const interval = Math.max(minIntervalMs, (now - c.createdAt) / 4);
    const since = c.polledAt === null ? now - c.createdAt + interval : now - c.polledAt;
    const overdue = c.urgent ? Number.POSITIVE_INFINITY : since / interval;
    if (overdue >= 1) due.push({ address: c.address, overdue });
  }
  due.sort((a, b) => b.overdue - a.overdue);
  return due.slice(0, count).map((d) => d.address);
}
